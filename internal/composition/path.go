package composition

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Step is one step of a field path: a property name, or — when Items is
// set — every element of an array.
type Step struct {
	Name  string
	Items bool
}

// Path is a field path: "$" (the whole value), property names joined by
// dots ("result.rows"), and "[]" after a name (or after "$") projecting
// through array elements ("entities[].name", "$[].id").
type Path struct {
	Steps []Step
}

// ErrPath is wrapped by every error of ParsePath and ParseTargetPath.
var ErrPath = errors.New("invalid field path")

// ParsePath parses a source path.
func ParsePath(s string) (Path, error) {
	if len(s) > MaxPathBytes {
		return Path{}, pathErr(s, "%d bytes, at most %d", len(s), MaxPathBytes)
	}
	if !utf8.ValidString(s) {
		return Path{}, pathErr(s, "not valid UTF-8")
	}
	if s == "" {
		return Path{}, pathErr(s, `empty; "$" is the whole value`)
	}
	var steps []Step
	rest := s
	if strings.HasPrefix(s, "$") && (len(s) == 1 || s[1] == '[' || s[1] == '.') {
		rest = s[1:]
		for strings.HasPrefix(rest, "[]") {
			steps = append(steps, Step{Items: true})
			rest = rest[2:]
		}
		switch {
		case rest == "":
			return checkSteps(s, steps)
		case rest[0] != '.':
			return Path{}, pathErr(s, "after $ comes [] or .name")
		}
		rest = rest[1:]
	}
	for _, part := range strings.Split(rest, ".") {
		name, brackets := part, 0
		for strings.HasSuffix(name, "[]") {
			name = name[:len(name)-2]
			brackets++
		}
		if err := checkName(name); err != nil {
			return Path{}, pathErr(s, "%v", err)
		}
		steps = append(steps, Step{Name: name})
		for range brackets {
			steps = append(steps, Step{Items: true})
		}
	}
	return checkSteps(s, steps)
}

// ParseTargetPath parses a target path: property names only, because a
// mapping writes one input field.
func ParseTargetPath(s string) (Path, error) {
	p, err := ParsePath(s)
	if err != nil {
		return Path{}, err
	}
	if len(p.Steps) == 0 {
		return Path{}, pathErr(s, "a target path names an input field; the whole input cannot be fed")
	}
	if p.HasItems() {
		return Path{}, pathErr(s, "a target path is property names only; [] projects sources")
	}
	return p, nil
}

func checkSteps(s string, steps []Step) (Path, error) {
	if len(steps) > MaxPathSteps {
		return Path{}, pathErr(s, "%d steps, at most %d", len(steps), MaxPathSteps)
	}
	return Path{Steps: steps}, nil
}

func checkName(name string) error {
	if name == "" {
		return errors.New("empty property name")
	}
	if name == "$" {
		return errors.New(`"$" stands only at the start`)
	}
	for _, r := range name {
		switch {
		case r == '[' || r == ']':
			return fmt.Errorf("property %q: [ and ] only as [] after a name", name)
		case unicode.IsControl(r):
			return fmt.Errorf("property %q contains a control character", name)
		}
	}
	return nil
}

func pathErr(s, format string, args ...any) error {
	return fmt.Errorf("%w %q: %s", ErrPath, s, fmt.Sprintf(format, args...))
}

// HasItems reports whether the path projects through an array.
func (p Path) HasItems() bool {
	for _, st := range p.Steps {
		if st.Items {
			return true
		}
	}
	return false
}

// EachPrefix is the path up to and including its first [] ("orgs[]" for
// "orgs[].slug"), the array a per-item edge iterates over.
func (p Path) EachPrefix() (string, bool) {
	for i, st := range p.Steps {
		if st.Items {
			return Path{Steps: p.Steps[:i+1]}.String(), true
		}
	}
	return "", false
}

// First is the name of the first step, "" for "$" and "$[]…".
func (p Path) First() string {
	if len(p.Steps) == 0 || p.Steps[0].Items {
		return ""
	}
	return p.Steps[0].Name
}

// String is the canonical spelling; ParsePath(p.String()) equals p.
func (p Path) String() string {
	if len(p.Steps) == 0 {
		return "$"
	}
	var b strings.Builder
	if p.Steps[0].Items {
		b.WriteByte('$')
	}
	for i, st := range p.Steps {
		if st.Items {
			b.WriteString("[]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(st.Name)
	}
	return b.String()
}
