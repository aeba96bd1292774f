package route

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/typeward/typeward/verify"
)

// serveMCP runs after verify's middleware admitted the request: the token
// is valid and names the tool a tools/call calls.
func (rt *Router) serveMCP(w http.ResponseWriter, r *http.Request) {
	claims, _ := verify.ClaimsFromContext(r.Context())
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rt.refuse(r, "too_large")
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), rt.cfg.UpstreamTimeout)
	defer cancel()
	if len(bytes.TrimSpace(body)) == 0 {
		rt.forward(ctx, w, r, nil)
		return
	}
	if isBatch(body) {
		// MCP has no batches since 2025-06-18; a batch would let tools/list
		// answers pass unfiltered.
		rt.refuse(r, "batch")
		writeRPCError(w, nil, rpcError{Code: codeInvalidRequest, Message: "JSON-RPC batches are not accepted by typeward route"})
		return
	}
	var msg rpcMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		rt.refuse(r, "bad_request")
		http.Error(w, "malformed JSON-RPC message", http.StatusBadRequest)
		return
	}
	switch msg.Method {
	case "tools/call":
		rt.call(ctx, w, r, claims, &msg, body)
	case "tools/list":
		rt.list(ctx, w, r, claims, &msg, body)
	default:
		rt.forward(ctx, w, r, body)
	}
}

// forward passes a request through and streams the answer back.
func (rt *Router) forward(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte) {
	req, err := rt.upstreamRequest(ctx, r, body)
	if err != nil {
		http.Error(w, "bad upstream request", http.StatusBadGateway)
		return
	}
	start := rt.cfg.Now()
	resp, err := rt.cfg.HTTPClient.Do(req)
	rt.metrics.upstreamSeconds.Observe(rt.cfg.Now().Sub(start).Seconds())
	if err != nil {
		rt.upstreamFailed(w, r, err)
		return
	}
	defer resp.Body.Close()
	for _, h := range returnedHeaders {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	fl, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

func (rt *Router) upstreamFailed(w http.ResponseWriter, r *http.Request, err error) {
	rt.refuse(r, "upstream_unavailable")
	rt.cfg.Log.WarnContext(r.Context(), "upstream failed", "err", err, "request_id", requestID(r.Context()))
	http.Error(w, "the upstream MCP server cannot be reached", http.StatusBadGateway)
}

// list forwards tools/list and filters the answer to the token's tools.
func (rt *Router) list(ctx context.Context, w http.ResponseWriter, r *http.Request, claims *verify.Claims, msg *rpcMessage, body []byte) {
	x, err := rt.send(ctx, r, body)
	if err != nil {
		rt.upstreamFailed(w, r, err)
		return
	}
	x.rewrite(func(m []byte) []byte {
		var resp rpcMessage
		if json.Unmarshal(m, &resp) != nil || !bytes.Equal(resp.ID, msg.ID) || resp.Result == nil {
			return nil
		}
		var result map[string]json.RawMessage
		if json.Unmarshal(resp.Result, &result) != nil {
			return nil
		}
		var tools []json.RawMessage
		_ = json.Unmarshal(result["tools"], &tools)
		kept := make([]json.RawMessage, 0, len(tools))
		for _, t := range tools {
			var decl struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(t, &decl) == nil && verify.ToolAllowed(claims, decl.Name) {
				kept = append(kept, t)
			}
		}
		result["tools"], _ = json.Marshal(kept)
		resp.Result, _ = json.Marshal(result)
		out, _ := json.Marshal(resp)
		return out
	})
	x.write(w)
}

// call enforces the pinned contract of one tools/call: the version pinned,
// the upstream's declaration unchanged, the arguments valid, the order (if
// enforced); then forwards and checks the result.
func (rt *Router) call(ctx context.Context, w http.ResponseWriter, r *http.Request, claims *verify.Claims, msg *rpcMessage, body []byte) {
	var params callParams
	_ = json.Unmarshal(msg.Params, &params) // verify.ToolName already read params.name
	setTool(r.Context(), params.Name)
	ref, ok := pinOf(claims, params.Name)
	if !ok {
		rt.refuse(r, "not_pinned")
		rt.challenge(w, http.StatusForbidden, "insufficient_scope",
			fmt.Sprintf("the token pins no version of tool %q (no mcp_composition names it)", params.Name), verify.ToolScopePrefix+params.Name)
		return
	}
	p, err := rt.schemas.get(ctx, ref)
	if err != nil {
		rt.refuse(r, "registry_unavailable")
		rt.calls(params.Name, "refused")
		writeRPCError(w, msg.ID, rpcError{Code: codeUnavailable, Message: fmt.Sprintf("tool %s: %v", params.Name, err)})
		return
	}
	live, err := rt.live.digest(ctx, r, params.Name)
	if err != nil && !errors.Is(err, errAbsent) {
		rt.refuse(r, "upstream_unavailable")
		rt.calls(params.Name, "refused")
		writeRPCError(w, msg.ID, rpcError{Code: codeUnavailable, Message: fmt.Sprintf("tool %s: %v", params.Name, err)})
		return
	}
	if errors.Is(err, errAbsent) {
		live = "(not listed)"
	}
	if live != ref.Digest {
		rt.refuse(r, "tool_changed")
		rt.calls(params.Name, "refused")
		writeRPCError(w, msg.ID, rpcError{Code: codeToolChanged,
			Message: fmt.Sprintf("tool %s changed: the upstream declares %s, the composition was proven for %s; validate the composition again and get a new token", params.Name, live, ref.Digest),
			Data:    map[string]string{"tool": params.Name, "upstream_digest": live, "pinned_digest": ref.Digest}})
		return
	}
	if bytes.Equal(bytes.TrimSpace(params.Arguments), []byte("null")) {
		params.Arguments = nil // clients send null for "no arguments"
	}
	args, err := decodeArguments(params.Arguments)
	if err != nil {
		rt.refuse(r, "invalid_arguments")
		rt.calls(params.Name, "invalid_arguments")
		writeRPCError(w, msg.ID, rpcError{Code: codeInvalidParams, Message: "arguments: " + err.Error()})
		return
	}
	if fs := check(p.input, args, "arguments"); len(fs) > 0 {
		rt.refuse(r, "invalid_arguments")
		rt.calls(params.Name, "invalid_arguments")
		writeRPCError(w, msg.ID, rpcError{Code: codeInvalidParams, Message: summary("", fs), Data: map[string]any{"tool": params.Name, "errors": fs}})
		return
	}
	var step *orderStep
	if rt.order != nil {
		if step, err = rt.order.begin(claims, params.Name); err != nil {
			rt.refuse(r, "out_of_order")
			rt.calls(params.Name, "out_of_order")
			writeRPCError(w, msg.ID, rpcError{Code: codeOutOfOrder, Message: err.Error()})
			return
		}
	}

	x, err := rt.send(ctx, r, body)
	if err != nil {
		rt.order.abort(step)
		rt.calls(params.Name, "upstream_error")
		rt.upstreamFailed(w, r, err)
		return
	}
	outcome := "ok"
	var content any
	x.rewrite(func(m []byte) []byte {
		var resp rpcMessage
		if json.Unmarshal(m, &resp) != nil || !bytes.Equal(resp.ID, msg.ID) {
			return nil
		}
		if resp.Result == nil {
			outcome = "tool_error"
			return nil
		}
		var result struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		_ = json.Unmarshal(resp.Result, &result)
		if result.IsError {
			outcome = "tool_error"
			return nil
		}
		if p.output == nil || len(result.StructuredContent) == 0 || string(result.StructuredContent) == "null" {
			return nil
		}
		sc, err := decodeArguments(result.StructuredContent)
		var fs []Failure
		if err != nil {
			fs = []Failure{{Message: "structuredContent: " + err.Error()}}
		} else {
			fs = check(p.output, sc, "structuredContent")
			content = sc
		}
		if len(fs) == 0 {
			return nil
		}
		outcome = "output_violation"
		rt.metrics.outputViolations.WithLabelValues(params.Name).Inc()
		rt.cfg.Log.WarnContext(r.Context(), "result breaks the pinned outputSchema", "tool", params.Name, "version", ref.Version,
			"digest", ref.Digest, "violation", fs[0].Message, "request_id", requestID(r.Context()))
		return errorMessage(msg.ID, rpcError{Code: codeInternal,
			Message: summary(fmt.Sprintf("tool %s returned a result that breaks its outputSchema: ", params.Name), fs),
			Data:    map[string]any{"tool": params.Name, "errors": fs}})
	})
	if outcome == "ok" {
		rt.order.done(step, content)
	} else {
		rt.order.abort(step)
	}
	rt.calls(params.Name, outcome)
	x.write(w)
}

// decodeArguments decodes a JSON value keeping numbers exact; absent
// arguments are the empty object.
func decodeArguments(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// challenge answers status with an RFC 6750 challenge naming this
// router's metadata.
func (rt *Router) challenge(w http.ResponseWriter, status int, code, description, scope string) {
	clean := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '\''
		}
		return r
	}, description)
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s", error="%s", error_description="%s", scope="%s"`, rt.metaURL, code, clean, scope))
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, http.StatusText(status), status)
}
