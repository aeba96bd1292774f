package verdict_test

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/verdict"
)

// docTables reads the code column of every table in docs/issues.md, keyed
// by the "## " heading above it.
func docTables(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/issues.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	heading := ""
	for _, line := range strings.Split(string(b), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			heading = h
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(line, "|") {
			continue
		}
		c := strings.TrimSpace(cells[1])
		if code, ok := strings.CutPrefix(c, "`"); ok && strings.HasSuffix(code, "`") {
			out[heading] = append(out[heading], strings.TrimSuffix(code, "`"))
		}
	}
	return out
}

// declaredCodes parses codes.go for every Code* constant, so a code added
// there but missing from the lists (and so from the docs) fails too.
func declaredCodes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if strings.HasPrefix(n.Name, "Code") {
					lit := vs.Values[i].(*ast.BasicLit)
					out = append(out, constant.StringVal(constant.MakeFromLiteral(lit.Value, lit.Kind, 0)))
				}
			}
		}
	}
	return out
}

func TestDocsListExactlyTheCodes(t *testing.T) {
	tables := docTables(t)
	for _, tc := range []struct {
		heading string
		codes   []string
	}{
		{"Field compatibility (`internal/compat`)", verdict.CompatCodes()},
		{"Compositions (`internal/composition`)", verdict.CompositionCodes()},
		{"Token endpoint (`internal/oauth`)", verdict.TokenCodes()},
	} {
		doc := slices.Sorted(slices.Values(tables[tc.heading]))
		code := slices.Sorted(slices.Values(tc.codes))
		if !slices.Equal(doc, code) {
			t.Errorf("docs/issues.md section %q lists %v, the code has %v", tc.heading, doc, code)
		}
		delete(tables, tc.heading)
	}
	for h, codes := range tables {
		t.Errorf("docs/issues.md section %q lists codes %v that no list in package verdict holds", h, codes)
	}
	all := slices.Concat(verdict.CompatCodes(), verdict.CompositionCodes(), verdict.TokenCodes())
	slices.Sort(all)
	if len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Errorf("a code is listed twice: %v", all)
	}
	declared := slices.Sorted(slices.Values(declaredCodes(t)))
	if !slices.Equal(declared, all) {
		t.Errorf("codes.go declares %v, the lists hold %v", declared, all)
	}
}
