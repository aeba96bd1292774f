package registry_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/typeward/typeward/internal/jstest"
)

// The digest vectors documented for routers (docs/digest-vectors.json,
// which verify's tests check against verify.DeclarationDigest) are what an
// independent implementation computes: npm canonicalize, run by node.
func TestDeclarationDigestVectorsNode(t *testing.T) {
	data, err := os.ReadFile("../../docs/digest-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Vectors []struct{ Name, Canonical, Digest string }
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	out := jstest.Run(t, "", "digest", "../../docs/digest-vectors.json")
	var got []struct{ Name, Canonical, Digest string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got) != len(f.Vectors) {
		t.Fatalf("node computed %d vectors, want %d", len(got), len(f.Vectors))
	}
	for i, v := range f.Vectors {
		if got[i].Digest != v.Digest || got[i].Canonical != v.Canonical {
			t.Errorf("%s:\n node %s %s\n   go %s %s", v.Name, got[i].Digest, got[i].Canonical, v.Digest, v.Canonical)
		}
	}
}
