package composition

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
	prop := func(name string) Step { return Step{Name: name} }
	each := Step{Items: true}
	tests := []struct {
		in        string
		want      []Step
		canonical string
	}{
		{"$", nil, "$"},
		{"rows", []Step{prop("rows")}, "rows"},
		{"result.rows", []Step{prop("result"), prop("rows")}, "result.rows"},
		{"entities[].name", []Step{prop("entities"), each, prop("name")}, "entities[].name"},
		{"matrix[][]", []Step{prop("matrix"), each, each}, "matrix[][]"},
		{"$[]", []Step{each}, "$[]"},
		{"$[].id", []Step{each, prop("id")}, "$[].id"},
		{"$.a", []Step{prop("a")}, "a"},
		{"$ref", []Step{prop("$ref")}, "$ref"},
		{"a b.c-d", []Step{prop("a b"), prop("c-d")}, "a b.c-d"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := ParsePath(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Steps, tt.want) {
				t.Errorf("steps %+v, want %+v", p.Steps, tt.want)
			}
			if p.String() != tt.canonical {
				t.Errorf("String() = %q, want %q", p.String(), tt.canonical)
			}
		})
	}
}

func TestParsePathErrors(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"", "empty"},
		{"a..b", "empty property name"},
		{".a", "empty property name"},
		{"a.", "empty property name"},
		{"a[0]", "[ and ] only as []"},
		{"a]", "[ and ] only as []"},
		{"[]", "empty property name"},
		{"$x.a[", "[ and ] only as []"},
		{"$[]x", "after $ comes"},
		{"$.", "empty property name"},
		{"a.$", `"$" stands only at the start`},
		{"a\x00b", "control character"},
		{"\xff", "UTF-8"},
		{strings.Repeat("a.", MaxPathSteps) + "a", "steps, at most"},
		{strings.Repeat("a", MaxPathBytes+1), "bytes, at most"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParsePath(tt.in)
			if !errors.Is(err, ErrPath) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, want ErrPath containing %q", err, tt.msg)
			}
		})
	}
}

func TestEachPrefix(t *testing.T) {
	for in, want := range map[string]string{"orgs[].slug": "orgs[]", "a.b[].c[].d": "a.b[]", "$[].x": "$[]", "a.b": ""} {
		got, _ := mustPath(t, in).EachPrefix()
		if got != want {
			t.Errorf("EachPrefix(%s) = %q, want %q", in, got, want)
		}
	}
}

// FuzzPath: a path either fails with ErrPath or round-trips through its
// canonical spelling, within bounds; resolving it in real schemas, as a
// source and as a target, never panics.
func FuzzPath(f *testing.F) {
	cat := loadCatalog(f, "testdata/tools.json")
	src, err := cat.ResolveTool(context.Background(), "lab/src", 0)
	if err != nil {
		f.Fatal(err)
	}
	tgt, err := cat.ResolveTool(context.Background(), "lab/loose", 0)
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"$", "$[]", "$[].a", "a.b[].c", "x[][]", "a..b", "$.a", "$a", "[]", "a]b",
		"rows[].id", "thing.label", "merged.q", "shapes.a", "tuple[]", "record.x.y", "nested.deep", "opt_list[].id", "variant.v", "shapes.b", "shapes.zzz"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			if !errors.Is(err, ErrPath) {
				t.Fatalf("error %v is not ErrPath", err)
			}
			return
		}
		if len(p.Steps) > MaxPathSteps {
			t.Fatalf("%d steps", len(p.Steps))
		}
		again, err := ParsePath(p.String())
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", p.String(), s, err)
		}
		if !reflect.DeepEqual(again.Steps, p.Steps) {
			t.Fatalf("%q -> %q changed the steps: %+v vs %+v", s, p.String(), p.Steps, again.Steps)
		}
		for _, each := range []bool{false, true} {
			if field, prob := resolveSource(newSchemaView(src.Output), p, each); prob == nil && len(field.leaf) == 0 && len(field.projections) == 0 && len(p.Steps) == 0 {
				t.Fatalf("$ resolved to nothing")
			}
		}
		if !p.HasItems() && len(p.Steps) > 0 {
			if field, prob := resolveTarget(newSchemaView(tgt.Input), p); prob == nil && len(field.ptrs) == 0 {
				t.Fatalf("target %s resolved to no subschema", p)
			}
		}
	})
}
