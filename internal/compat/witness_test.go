package compat

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/typeward/typeward/internal/verdict"
)

// assertWitness re-validates an Incompatible issue's witness, decoded from
// its JSON as a request would carry it: the source must accept it and the
// target reject it, at the keyword the issue names.
func assertWitness(t testing.TB, src, tgt Node, is verdict.Issue) {
	t.Helper()
	if is.Witness == nil || is.WitnessError == nil {
		t.Fatalf("incompatible issue without witness: %+v", is)
	}
	if len(is.Witness) > maxWitnessBytes {
		t.Fatalf("witness of %d bytes", len(is.Witness))
	}
	dec := json.NewDecoder(bytes.NewReader(is.Witness))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("witness %s: %v", is.Witness, err)
	}
	if err := src.Schema.ValidateAt(src.Pointer, v); err != nil {
		t.Fatalf("witness %s is not valid under the source %s: %v", is.Witness, src.Schema.Canonical, err)
	}
	if err := tgt.Schema.ValidateAt(tgt.Pointer, v); err == nil {
		t.Fatalf("witness %s is valid under the target %s", is.Witness, tgt.Schema.Canonical)
	}
	if is.WitnessError.Message == "" {
		t.Fatalf("witness error without a message: %+v", is.WitnessError)
	}
}
