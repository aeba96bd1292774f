package verify_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/typeward/typeward/verify"
	"github.com/typeward/typeward/verify/jcs"
)

var update = flag.Bool("update", false, "rewrite docs/digest-vectors.json's canonical and digest members")

const vectorsFile = "../docs/digest-vectors.json"

type vector struct {
	Name      string          `json:"name"`
	Tool      json.RawMessage `json:"tool"`
	Canonical string          `json:"canonical,omitempty"`
	Digest    string          `json:"digest,omitempty"`
}

type vectorFile struct {
	Description string   `json:"description"`
	Vectors     []vector `json:"vectors"`
}

func readVectors(t *testing.T) vectorFile {
	t.Helper()
	data, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var f vectorFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// The documented vectors are what DeclarationDigest computes from the
// tools/list entry as spelt.
func TestDeclarationDigestVectors(t *testing.T) {
	f := readVectors(t)
	for i, v := range f.Vectors {
		var tool struct {
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(v.Tool, &tool); err != nil {
			t.Fatal(err)
		}
		digest, err := verify.DeclarationDigest(tool.InputSchema, tool.OutputSchema)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		doc := `{"inputSchema":` + string(tool.InputSchema)
		if len(tool.OutputSchema) > 0 && string(tool.OutputSchema) != "null" {
			doc += `,"outputSchema":` + string(tool.OutputSchema)
		}
		canon, err := jcs.Canonicalize([]byte(doc + "}"))
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			f.Vectors[i].Canonical, f.Vectors[i].Digest = string(canon), digest
			continue
		}
		if digest != v.Digest || string(canon) != v.Canonical {
			t.Errorf("%s:\n got %s %s\nwant %s %s", v.Name, digest, canon, v.Digest, v.Canonical)
		}
	}
	if *update {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(f); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vectorsFile, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDeclarationDigestRefuses(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{``, ``},
		{`{"type":"object","maximum":9007199254740993}`, ``},
		{`{"type":"object"}`, `{"const":"\ud800"}`},
		{`{"type":"object","a":1,"a":2}`, ``},
	} {
		if d, err := verify.DeclarationDigest([]byte(tc.in), []byte(tc.out)); err == nil {
			t.Errorf("DeclarationDigest(%s, %s) = %s, want an error", tc.in, tc.out, d)
		}
	}
}
