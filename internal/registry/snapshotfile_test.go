package registry_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestParseSnapshotFileKeepsWhatDriftReports(t *testing.T) {
	data := []byte(`{"tools":[
		{"name":"get user","inputSchema":{"type":"object"}},
		{"name":"nullish","inputSchema":null},
		{"name":"missing"},
		{"name":"missing"}
	],"nextCursor":""}`)
	got, err := registry.ParseSnapshotFile(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Server != "" || len(got[0].Tools) != 4 {
		t.Fatalf("parsed %+v", got)
	}
	tools := got[0].Tools
	if string(tools[1].InputSchema) != "null" || tools[2].InputSchema != nil {
		t.Errorf("null and missing schemas must stay distinct: %q %q", tools[1].InputSchema, tools[2].InputSchema)
	}
}

func TestParseSnapshotFileShapesAndErrors(t *testing.T) {
	servers := storetest.Corpus(t) // parsed with ParseSnapshotFile
	// A list compared with itself reports only its declaration problems:
	// in the corpus, two sentry tools use the draft-04 tuple form of
	// "items", which 2020-12 does not allow.
	n := 0
	var problems []string
	for _, s := range servers {
		n += len(s.Tools)
		for _, f := range registry.Drift(s.Tools, s.Tools) {
			problems = append(problems, s.Server+"/"+f.Tool+" "+f.Code)
		}
	}
	want := []string{
		"sentry-mcp:catalog/create_uptime_monitor invalid_input_schema",
		"sentry-mcp:catalog/update_uptime_monitor invalid_input_schema",
		"sentry-mcp:catalog/whoami non_object_input_schema",
	}
	if !slices.Equal(problems, want) {
		t.Errorf("corpus problems = %v, want %v", problems, want)
	}
	if len(servers) != 16 || n != 297 {
		t.Errorf("corpus: %d servers, %d tools; want 16 and 297", len(servers), n)
	}
	if got, err := registry.ParseSnapshotFile([]byte(` [{"name":"a"}] `)); err != nil || len(got[0].Tools) != 1 {
		t.Errorf("bare array: %+v, %v", got, err)
	}
	for _, bad := range []string{
		``, `{}`, `"x"`, `{"tools":{}}`, `{"tools":[],"servers":[]}`,
		`{"tools":[],"nextCursor":"page2"}`, `{"servers":[{"server":"","tools":[]}]}`,
		`{"servers":[{"server":"a","tools":[]},{"server":"a","tools":[]}]}`, `[{"name":1}]`,
	} {
		if _, err := registry.ParseSnapshotFile([]byte(bad)); !errors.Is(err, registry.ErrToolsFile) {
			t.Errorf("ParseSnapshotFile(%s) error = %v, want ErrToolsFile", bad, err)
		}
	}
}

func FuzzParseSnapshotFile(f *testing.F) {
	for _, seed := range []string{`{"tools":[{"name":"a","inputSchema":{}}]}`, `[{"name":"a b"}]`,
		`{"servers":[{"server":"s","tools":[{"name":"x","inputSchema":null}]}]}`, `{"tools":[],"nextCursor":"c"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := registry.ParseSnapshotFile(data)
		if err != nil {
			if !errors.Is(err, registry.ErrToolsFile) {
				t.Fatalf("error %v does not wrap ErrToolsFile", err)
			}
			return
		}
		for _, s := range servers {
			_ = registry.Drift(s.Tools, s.Tools)
		}
	})
}
