package route

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/typeward/typeward/verify"
	"github.com/typeward/typeward/verify/jcs"
)

// call enforces the pinned contract of one tools/call: the version pinned,
// the upstream's declaration unchanged, the arguments valid, the order (if
// enforced); then forwards and checks the result.
func (rt *Router) call(ctx context.Context, w http.ResponseWriter, r *http.Request, claims *verify.Claims, msg *rpcMessage, body []byte, tk *ticket) {
	// verify.ToolName read params.name; the router reads the members it
	// acts on by their exact names, as the upstream will.
	var params callParams
	pm, err := strictObject(msg.Params, "name", "arguments")
	if err == nil {
		params.Arguments = pm["arguments"]
		if json.Unmarshal(pm["name"], &params.Name) != nil {
			err = errors.New("params.name is not a string")
		}
	}
	if err != nil {
		rt.refuse(r, "bad_request")
		http.Error(w, "malformed or ambiguous tools/call params: "+err.Error(), http.StatusBadRequest)
		return
	}
	setTool(r.Context(), params.Name)
	ref, ok := pinOf(claims, params.Name)
	if !ok {
		rt.refuse(r, "not_pinned")
		rt.verifier.Challenge(w, verify.Scheme(claims.TokenType()), http.StatusForbidden, "insufficient_scope",
			fmt.Sprintf("the token pins no version of tool %q (no mcp_composition names it)", params.Name), rt.challengeScope(r, claims, params.Name))
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
	if errors.Is(err, errBusy) {
		rt.calls(params.Name, "refused")
		rt.busy(w, r, msg.ID, err)
		return
	}
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

	j := rt.newJudge(r, peerOf(r, claims), msg)
	outcome := "ok"
	var content any
	answered := false
	var settle sync.Once
	var mu sync.Mutex // a resumed stream judges on another goroutine
	j.each = func(m []byte) []byte {
		mu.Lock()
		defer mu.Unlock()
		var violation []Failure
		why, logMsg := "that breaks its outputSchema", "result breaks the pinned outputSchema"
		out, refused := rt.screen(j, m, func(resp *rpcMessage) []byte {
			answered = true
			if resp.Result == nil {
				outcome = "tool_error"
				return nil
			}
			result, err := strictObject(resp.Result, "isError", "structuredContent", "content")
			isError := false
			if err == nil && result["isError"] != nil && json.Unmarshal(result["isError"], &isError) != nil {
				err = errors.New("isError is not a boolean")
			}
			if err != nil {
				violation = []Failure{{Message: "result: " + err.Error()}}
			} else if isError {
				outcome = "tool_error"
				return nil
			} else if p.output == nil {
				return nil
			} else if sc := result["structuredContent"]; len(sc) == 0 || string(sc) == "null" {
				// MCP: a tool declaring an outputSchema must return
				// structured results conforming to it. Without them the
				// result's content would go on unchecked.
				violation = []Failure{{InstancePath: "", Keyword: "required", Message: "structuredContent: required by the outputSchema, missing"}}
			} else if v, err := decodeArguments(sc); err != nil {
				violation = []Failure{{Message: "structuredContent: " + err.Error()}}
			} else if violation = check(p.output, v, "structuredContent"); len(violation) == 0 {
				if violation = contentAgrees(result["content"], sc); len(violation) == 0 {
					content = v
					return nil
				}
				why, logMsg = "whose content is not its structuredContent", "result content is not its structuredContent"
			}
			return errorMessage(msg.ID, rpcError{Code: codeInternal,
				Message: summary(fmt.Sprintf("tool %s returned a result %s: ", params.Name, why), violation),
				Data:    map[string]any{"tool": params.Name, "errors": violation}})
		})
		if refused {
			if violation != nil {
				outcome = "output_violation"
				rt.metrics.outputViolations.WithLabelValues(params.Name).Inc()
				rt.cfg.Log.WarnContext(r.Context(), logMsg, "tool", params.Name, "version", ref.Version,
					"digest", ref.Digest, "violation", violation[0].Message, "request_id", requestID(r.Context()))
			} else if outcome != "output_violation" {
				outcome = "upstream_error"
			}
		}
		if answered {
			// Settled before the answer reaches the client, whose next
			// call may be the node it feeds.
			settle.Do(func() {
				if outcome == "ok" {
					rt.order.done(step, content)
				} else {
					rt.order.abort(step) // an error, a tool error, a refused result: not counted
				}
			})
		}
		return out
	}
	req, err := rt.upstreamRequest(ctx, r, body)
	var status int
	if err == nil {
		status, err = rt.forward(w, req, tk, j, 0)
	}
	if err != nil {
		// The call may have run unless it never left: a hang-up or a
		// timeout must not give the run back (a client hanging up at once
		// could then run a node any number of times).
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			rt.order.abort(step)
		}
		rt.calls(params.Name, "upstream_error")
		if errors.Is(err, errBusy) {
			// The call reached the upstream and may have run: no
			// Retry-After, a retry could run it again.
			rt.refuse(r, "overloaded")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write(errorMessage(msg.ID, rpcError{Code: codeUnavailable,
				Message: fmt.Sprintf("tool %s: the call reached the upstream and may have run, but its answer was not checked: %v", params.Name, err)}))
			return
		}
		rt.upstreamFailed(w, r, msg.ID, err)
		return
	}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case status < 200 || status > 299:
		outcome = "upstream_error" // refused at the HTTP level: not run
		rt.order.abort(step)
	case !answered:
		// A 2xx without an answer to the call: it may have run, and it
		// feeds nothing downstream (unless a resumed stream brings it).
		outcome = "upstream_error"
	}
	rt.calls(params.Name, outcome)
}

// contentAgrees checks a result's content against its structuredContent
// sc (valid against the outputSchema): a client's model usually reads the
// content. Every block with a text member (whatever its type says) whose
// text is one JSON value, a bare number or string included, must be sc
// after RFC 8785 canonicalisation, and must read unambiguously (no member
// twice, no lone surrogate escape): MCP has a tool returning structured
// content also return it serialised in a text block. Text that is not
// JSON is prose the router cannot judge against a schema and passes, as
// do other blocks (images, audio, resource links and embedded resources).
func contentAgrees(content, sc json.RawMessage) []Failure {
	if len(content) == 0 || string(content) == "null" {
		return nil
	}
	fail := func(path, keyword, format string, a ...any) []Failure {
		return []Failure{{InstancePath: path, Keyword: keyword, Message: fmt.Sprintf(format, a...)}}
	}
	blocks, err := splitArray(content)
	if err != nil {
		return fail("/content", "type", "content: not an array")
	}
	var want []byte
	for i, b := range blocks {
		block, err := strictObject(b, "type", "text")
		if err != nil {
			return fail(fmt.Sprintf("/content/%d", i), "", "content[%d]: %v", i, err)
		}
		raw, ok := block["text"]
		if !ok {
			continue
		}
		if stringIs(raw, sc) {
			continue // the structuredContent's own bytes, which the message's check read
		}
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return fail(fmt.Sprintf("/content/%d/text", i), "type", "content[%d].text: not a string", i)
		}
		if !json.Valid([]byte(text)) {
			continue // prose
		}
		path := fmt.Sprintf("/content/%d/text", i)
		if err := checkStrict([]byte(text)); err != nil {
			return fail(path, "", "content[%d].text: JSON peers read differently (%v)", i, err)
		}
		if want == nil {
			if want, err = jcs.Canonicalize(sc); err != nil {
				return fail(path, "", "content[%d].text: JSON, and structuredContent cannot be canonicalised to compare them (%v)", i, err)
			}
		}
		got, err := jcs.Canonicalize([]byte(text))
		if err != nil {
			return fail(path, "", "content[%d].text: JSON that cannot be canonicalised (%v)", i, err)
		}
		if !bytes.Equal(got, want) {
			return fail(path, "const", "content[%d].text: JSON other than the structuredContent", i)
		}
	}
	return nil
}
