// Package docs holds the project's prose; its test keeps the pages'
// relative links pointing at files and headings that exist, and the README
// a newcomer's page.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pages are the markdown files whose links are checked, from the root.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"../README.md", "../CONTRIBUTING.md"}
	return append(out, docs...)
}

var (
	link  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	fence = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	// slugDrop is what GitHub leaves out of a heading's anchor.
	slugDrop = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// slug is a heading's anchor as GitHub makes it.
func slug(heading string) string {
	return strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(strings.TrimSpace(heading)), ""), " ", "-")
}

// anchors are the anchors of a markdown page's headings (outside code).
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(fence.ReplaceAllString(text, ""), "\n") {
		if h, ok := strings.CutPrefix(line, "#"); ok {
			out[slug(strings.TrimLeft(h, "#"))] = true
		}
	}
	return out
}

// brokenLinks lists the relative links of page (its text, at path) that
// name a missing file, or a heading its target page lacks.
func brokenLinks(path, text string) []string {
	var bad []string
	for _, m := range link.FindAllStringSubmatch(fence.ReplaceAllString(text, ""), -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		file, frag, _ := strings.Cut(target, "#")
		if file == "" {
			if !anchors(text)[frag] {
				bad = append(bad, target+": no such heading")
			}
			continue
		}
		resolved := filepath.Join(filepath.Dir(path), file)
		b, err := os.ReadFile(resolved)
		if err != nil {
			if info, serr := os.Stat(resolved); serr == nil && info.IsDir() && frag == "" {
				continue
			}
			bad = append(bad, target+": no such file")
			continue
		}
		if frag != "" && strings.HasSuffix(resolved, ".md") && !anchors(string(b))[frag] {
			bad = append(bad, target+": no such heading")
		}
	}
	return bad
}

func TestLinksResolve(t *testing.T) {
	for _, p := range pages(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range brokenLinks(p, string(b)) {
			t.Errorf("%s: %s", p, bad)
		}
	}
}

// The checker itself: a link that must fail does.
func TestBrokenLinks(t *testing.T) {
	for _, tc := range []struct {
		text string
		bad  int
	}{
		{"[a](design.md) [b](design.md#running) [c](../verify) [d](https://x.example/y) [e](#here)\n## Here", 0},
		{"[a](nowhere.md)", 1},
		{"[a](design.md#no-such-heading)", 1},
		{"[a](#missing)\n## Present", 1},
		{"```\n[a](nowhere.md)\n```", 0},
		{"[a](design.md#human-approval-openid-ciba-poll-mode)", 0},
	} {
		if got := brokenLinks("page.md", tc.text); len(got) != tc.bad {
			t.Errorf("%q: %v, want %d broken", tc.text, got, tc.bad)
		}
	}
}

// TestReadmeIsShort: the README is a newcomer's page (issue 18: at most
// 200 lines); reference goes to docs/, development to CONTRIBUTING.md.
func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 200 {
		t.Errorf("README.md has %d lines; keep it at most 200 and move reference to docs/", n)
	}
}
