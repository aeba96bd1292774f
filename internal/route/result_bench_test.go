package route

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/typeward/typeward/internal/schema"
)

// benchResult is bench_rows' answer as the TypeScript SDK server sends it
// (its text block JSON.stringify of the structuredContent), with the
// outputSchema compiled and the structuredContent's bytes.
func benchResult(b *testing.B) (msg []byte, out *schema.Schema, sc []byte) {
	raw, err := os.ReadFile("../../scripts/mcp/bench-rows.json")
	var d struct {
		OutputSchema      json.RawMessage `json:"outputSchema"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &d)
	}
	var c bytes.Buffer
	if err == nil {
		err = json.Compact(&c, d.StructuredContent)
	}
	if err != nil {
		b.Fatal(err)
	}
	sc = c.Bytes()
	text, _ := json.Marshal(string(sc))
	msg = []byte(`{"result":{"content":[{"type":"text","text":` + string(text) + `}],"structuredContent":` + string(sc) + `},"jsonrpc":"2.0","id":1}`)
	s, err := schema.Parse(d.OutputSchema)
	if err != nil {
		b.Fatal(err)
	}
	return msg, s, sc
}

// BenchmarkResultCheck: each step of checking a tools/call result, on
// bench_rows' answer (BenchmarkToolCallLatency's): the strict read of the
// message, of its result, the structuredContent decoded, validated
// against the outputSchema, and the content compared with it.
func BenchmarkResultCheck(b *testing.B) {
	msg, s, sc := benchResult(b)
	b.Run("parseMessage", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parseMessage(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	m, _ := parseMessage(msg)
	b.Run("strictObject", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := strictObject(m.Result, "isError", "structuredContent", "content"); err != nil {
				b.Fatal(err)
			}
		}
	})
	res, _ := strictObject(m.Result, "isError", "structuredContent", "content")
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeArguments(sc); err != nil {
				b.Fatal(err)
			}
		}
	})
	v, _ := decodeArguments(sc)
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if check(s, v, "structuredContent") != nil {
				b.Fatal()
			}
		}
	})
	b.Run("contentAgrees", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if contentAgrees(res["content"], res["structuredContent"]) != nil {
				b.Fatal()
			}
		}
	})
}
