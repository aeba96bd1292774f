package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// checkDepth scans raw JSON for nesting beyond MaxDepth before decoding,
// so a hostile document never reaches a recursive decoder or walker.
func checkDepth(data []byte) error {
	depth := 0
	inString := false
	escaped := false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return &Error{Kind: ErrTooDeep, Detail: fmt.Sprintf("more than %d levels", MaxDepth)}
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// decode reads one JSON document, numbers as json.Number so no precision is
// lost. A syntax error names its line and column: a tool author fixing a
// schema by hand needs the place, not just the complaint.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		var syntax *json.SyntaxError
		switch {
		case errors.As(err, &syntax):
			return nil, syntaxError(data, syntax.Offset, syntax.Error())
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, syntaxError(data, int64(len(data))+1, "unexpected end of input")
		}
		return nil, &Error{Kind: ErrSyntax, Detail: err.Error()}
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, syntaxError(data, end+int64(len(data[end:])-len(bytes.TrimLeft(data[end:], " \t\r\n")))+1, "more after the top-level value")
	}
	return doc, nil
}

// syntaxError places a problem at a byte offset (1-based, the decoder's
// convention: the offset just past the byte that went wrong).
func syntaxError(data []byte, offset int64, problem string) *Error {
	offset = min(max(offset, 1), int64(len(data))+1)
	before := data[:offset-1]
	line := bytes.Count(before, []byte("\n")) + 1
	column := len(before) - bytes.LastIndexByte(before, '\n')
	return &Error{Kind: ErrSyntax, Detail: fmt.Sprintf("line %d, column %d: %s", line, column, problem)}
}
