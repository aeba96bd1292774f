package registry

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// EncodeImport checks what ImportSnapshot stores and returns the tools as
// one JSON array in which every declaration is byte for byte as given.
// encoding/json cannot do that: it compacts raw members and escapes <, >
// and &, and a snapshot is the record of what a server said.
//
// Tools are kept with their problems (drift reports those), but the
// server name, the source and anything that cannot be JSON text at all (a
// raw member that is not UTF-8 JSON, a string that is not UTF-8) are
// refused with a *DeclarationError, by every store alike.
func EncodeImport(server, source string, tools []Tool) ([]byte, error) {
	if err := CheckServer(server); err != nil {
		return nil, err
	}
	var problems []Problem
	if !utf8.ValidString(source) || strings.ContainsRune(source, 0) {
		problems = append(problems, Problem{Code: CodeInvalidText, Message: "snapshot source contains a NUL character or bytes that are not UTF-8"})
	}
	buf := []byte{'['}
	for i, t := range tools {
		if i > 0 {
			buf = append(buf, ',')
		}
		var ps []Problem
		buf, ps = appendVerbatim(buf, t)
		problems = append(problems, ps...)
	}
	if len(problems) > 0 {
		return nil, &DeclarationError{Problems: problems}
	}
	return append(buf, ']'), nil
}

// appendVerbatim appends t as a JSON object, its raw members unchanged,
// and reports what cannot be JSON text.
func appendVerbatim(buf []byte, t Tool) ([]byte, []Problem) {
	var problems []Problem
	bad := func(code, format string) {
		problems = append(problems, Problem{Tool: t.Name, Code: code, Message: format})
	}
	buf = append(buf, `{"name":`...)
	buf = appendJSONString(buf, t.Name)
	if !utf8.ValidString(t.Name) {
		bad(CodeInvalidName, "the name is not UTF-8 text")
	}
	for _, m := range []struct{ key, value string }{{"title", t.Title}, {"description", t.Description}} {
		if m.value == "" {
			continue
		}
		buf = append(buf, `,"`+m.key+`":`...)
		buf = appendJSONString(buf, m.value)
		if !utf8.ValidString(m.value) {
			bad(CodeInvalidText, m.key+" is not UTF-8 text")
		}
	}
	for _, m := range []struct {
		key, code string
		raw       json.RawMessage
	}{
		{"inputSchema", CodeInvalidInputSchema, t.InputSchema},
		{"outputSchema", CodeInvalidOutputSchema, t.OutputSchema},
		{"annotations", CodeInvalidAnnotations, t.Annotations},
		{"_meta", CodeInvalidMeta, t.Meta},
	} {
		if len(m.raw) == 0 { // as the struct tags' omitempty
			continue
		}
		if !json.Valid(m.raw) || !utf8.Valid(m.raw) {
			bad(m.code, m.key+" is not JSON text in UTF-8")
			continue
		}
		buf = append(buf, `,"`+m.key+`":`...)
		buf = append(buf, m.raw...)
	}
	return append(buf, '}'), problems
}

// appendJSONString appends s as a JSON string. The escaping may differ
// from the original text but the decoded string is the same.
func appendJSONString(buf []byte, s string) []byte {
	enc, _ := json.Marshal(s) // a string always encodes
	return append(buf, enc...)
}
