package composition

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// assertStrictRefusalsWitnessed checks that a strict client is refused
// only with a witness: every issue policy grades that is an ERROR under
// strict is Incompatible, with a witness the real validator confirms,
// re-validated here: a path finding's whole output is accepted by the
// source's output schema, an unbound input's witness is rejected by the
// target's input schema at required, and a compatibility finding's mapped
// value is rejected by the target field's schema. The other issues
// (unknown_tool, cycle, a path the schema does not have …) are not
// compatibility claims and weigh the same in every mode. It returns the
// strict ERRORs it confirmed.
func assertStrictRefusalsWitnessed(t *testing.T, tools registry.Resolver, r *Result) int {
	t.Helper()
	strict, n := r.Under(grading.Strict), 0
	for i, is := range strict.Issues {
		if _, graded := r.places[i]; !graded {
			if is.Severity != r.Issues[i].Severity {
				t.Errorf("an issue policy does not grade changed with the mode: %+v", is)
			}
			continue
		}
		if is.Severity != verdict.SeverityError {
			continue
		}
		n++
		if is.Verdict != verdict.Incompatible || len(is.Witness) == 0 || is.WitnessError == nil {
			t.Errorf("strict refusal without a witness: %+v", is)
			continue
		}
		w := decodeWitness(t, is.Witness)
		resolve := func(name string) *registry.ResolvedTool {
			tool, err := tools.ResolveTool(context.Background(), name, 0)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return tool
		}
		src, tgt, _ := strings.Cut(is.FieldPath, "->")
		switch {
		case is.Edge == "": // an input only optional edges feed
			assertInputWitness(t, resolve(is.TargetTool).Input, is, tgt)
		case is.TargetPointer == "" && (is.Code == verdict.CodeMayBeMissing || is.Code == verdict.CodeMayBeNull):
			if err := resolve(is.SourceTool).Output.Validate(w); err != nil {
				t.Errorf("%s %s: witness %s is no output of %s: %v", is.Code, is.FieldPath, is.Witness, is.SourceTool, err)
			}
		default:
			p, err := ParseTargetPath(tgt)
			if err != nil {
				t.Fatalf("%s: %v", is.FieldPath, err)
			}
			in := resolve(is.TargetTool).Input
			field, prob := resolveTarget(newSchemaView(in), p)
			if prob != nil {
				t.Fatalf("%s: %s", is.FieldPath, prob.msg)
			}
			if !slices.ContainsFunc(field.ptrs, func(ptr string) bool { return in.ValidateAt(ptr, w) != nil }) {
				t.Errorf("%s %s (from %s): witness %s is accepted by %s's %s", is.Code, is.FieldPath, src, is.Witness, is.TargetTool, tgt)
			}
		}
	}
	return n
}

// TestStrictRefusalsCarryWitnesses: over pipelines of the real corpus (an
// edge for every output and input property of the same name, always and
// optional), a strict client is refused only with a confirmed witness.
func TestStrictRefusalsCarryWitnesses(t *testing.T) {
	servers := loadServers(t)
	cat := registry.NewCatalog(servers)
	v := NewValidator(cat, nil, compat.NewChecker())
	var tools []*registry.ResolvedTool
	for _, st := range servers {
		for _, tool := range st.Tools {
			if rt, err := cat.ResolveTool(t.Context(), registry.QualifiedName(st.Server, tool.Name), 0); err == nil {
				tools = append(tools, rt)
			}
		}
	}
	props := func(s *schema.Schema) []string {
		if s == nil {
			return nil
		}
		m, _ := s.Root.(map[string]any)
		ps, _ := m["properties"].(map[string]any)
		names := make([]string, 0, len(ps))
		for name := range ps {
			if checkName(name) == nil {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		return names
	}
	var pipelines, refusals int
	for _, a := range tools {
		outs := props(a.Output)
		for _, b := range tools {
			ins := props(b.Input)
			var maps []string
			for _, name := range outs {
				if _, ok := slices.BinarySearch(ins, name); ok {
					maps = append(maps, fmt.Sprintf("%q:%q", name, name))
				}
			}
			if len(maps) == 0 || a == b {
				continue
			}
			for _, optional := range []bool{false, true} {
				pipelines++
				doc := fmt.Sprintf(`{"nodes":[{"id":"a","tool":%q},{"id":"b","tool":%q}],"edges":[{"from":"a","to":"b","optional":%t,"map":{%s}}]}`,
					a.QualifiedName(), b.QualifiedName(), optional, strings.Join(maps, ","))
				refusals += assertStrictRefusalsWitnessed(t, cat, validate(t, v, doc))
			}
		}
	}
	t.Logf("%d real pipelines, %d strict refusals, each with a confirmed witness", pipelines, refusals)
	if pipelines < 100 || refusals < 20 {
		t.Errorf("only %d pipelines and %d strict refusals: the test checks too little", pipelines, refusals)
	}
}
