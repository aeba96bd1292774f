package verdict

import "encoding/json"

// Issue is one finding, in the wire shape of docs/design.md ("Answers").
// The composition validator fills the tool, edge and field-path members; the
// checker fills code, message, pointers, verdict and witness; policy sets
// the severity.
type Issue struct {
	Severity      Severity `json:"severity"`
	Code          string   `json:"code"`
	SourceTool    string   `json:"source_tool,omitempty"`
	TargetTool    string   `json:"target_tool,omitempty"`
	Edge          string   `json:"edge,omitempty"`
	FieldPath     string   `json:"field_path,omitempty"`
	SourcePointer string   `json:"source_pointer,omitempty"`
	TargetPointer string   `json:"target_pointer,omitempty"`
	Message       string   `json:"message"`
	// Verdict is set on every issue that comes from a compatibility check.
	Verdict Verdict `json:"verdict,omitempty"`
	// Witness is the value, valid under the source and invalid under the
	// target, that proves an Incompatible verdict. Any JSON value, null
	// included: a nil RawMessage is "no witness", the bytes `null` are the
	// witness null.
	Witness json.RawMessage `json:"witness,omitempty"`
	// WitnessError is the target validator's complaint about Witness.
	WitnessError *WitnessError `json:"witness_error,omitempty"`
}

// WitnessError is where and why the target's validator rejects a witness.
type WitnessError struct {
	KeywordLocation string `json:"keyword_location"`
	Message         string `json:"message"`
}

// Clip shortens a witness for text (a message, a report line) to at most
// n bytes, marking a cut with "…"; Issues carry the whole witness, itself
// bounded by the checker.
func Clip(witness json.RawMessage, n int) string {
	if len(witness) <= n {
		return string(witness)
	}
	cut := n
	for cut > 0 && witness[cut]&0xC0 == 0x80 {
		cut-- // not inside a UTF-8 sequence
	}
	return string(witness[:cut]) + "…"
}
