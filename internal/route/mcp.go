package route

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/typeward/typeward/verify"
	"github.com/typeward/typeward/verify/jcs"
)

// serveMCP runs after verify's middleware admitted the request: the token
// is valid and names the tool a tools/call calls.
func (rt *Router) serveMCP(w http.ResponseWriter, r *http.Request) {
	claims, _ := verify.ClaimsFromContext(r.Context())
	if r.Method != http.MethodPost && r.Method != http.MethodDelete {
		// No GET stream: its messages would reach the client unchecked, and
		// a server may answer requests on it (resuming a stream).
		rt.refuse(r, "method_not_allowed")
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "typeward route answers POST (and DELETE of a session) only; it opens no GET stream", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rt.refuse(r, "too_large")
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), rt.cfg.UpstreamTimeout)
	defer cancel()
	if len(bytes.TrimSpace(body)) == 0 {
		tk, ok := rt.admit(w, r, nil, 0)
		if !ok {
			return
		}
		defer tk.done()
		rt.relay(ctx, w, r, nil, nil, tk)
		return
	}
	if isBatch(body) {
		// MCP has no batches since 2025-06-18; a batch would let tools/list
		// answers pass unfiltered.
		rt.refuse(r, "batch")
		writeRPCError(w, nil, rpcError{Code: codeInvalidRequest, Message: "JSON-RPC batches are not accepted by typeward route"})
		return
	}
	msg, err := parseMessage(body)
	if err != nil {
		rt.refuse(r, "bad_request")
		http.Error(w, "malformed or ambiguous JSON-RPC message: "+err.Error(), http.StatusBadRequest)
		return
	}
	if msg.Method != "" && (msg.ID != nil || msg.Method == "tools/call") && !validID(msg.ID) {
		// A tools/call notification might run the tool with no answer to
		// check (and --enforce-order would give the run back).
		rt.refuse(r, "bad_request")
		writeRPCError(w, nil, rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("%.100s needs an id, a string or a number", msg.Method)})
		return
	}
	if m := msg.Method; m != "" && m != "tools/call" && m != "tools/list" && !passedMethod(m) {
		rt.refuse(r, "method_not_allowed")
		writeRPCError(w, msg.ID, rpcError{Code: codeMethodNotFound,
			Message: fmt.Sprintf("typeward route does not pass %.100q on: a composition token authorizes tools (initialize, ping, logging/setLevel, tools/list, tools/call and notifications only)", m)})
		return
	}
	tk, ok := rt.admit(w, r, msg.ID, len(body))
	if !ok {
		return
	}
	defer tk.done()
	switch msg.Method {
	case "tools/call":
		rt.call(ctx, w, r, claims, msg, body, tk)
	case "tools/list":
		rt.list(ctx, w, r, claims, msg, body, tk)
	default:
		rt.relay(ctx, w, r, msg, body, tk)
	}
}

// admit takes a slot of the limiter for a request of n bytes, or answers
// 503 (a JSON-RPC error to id, with Retry-After): what the router holds
// at once is bounded, and nothing queues.
func (rt *Router) admit(w http.ResponseWriter, r *http.Request, id json.RawMessage, n int) (*ticket, bool) {
	tk, err := rt.limit.admit(n)
	if err != nil {
		rt.busy(w, r, id, err)
		return nil, false
	}
	return tk, true
}

// busy answers 503 with Retry-After and a JSON-RPC error to id.
func (rt *Router) busy(w http.ResponseWriter, r *http.Request, id json.RawMessage, err error) {
	rt.refuse(r, "overloaded")
	w.Header().Set("Retry-After", "1")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(errorMessage(id, rpcError{Code: codeUnavailable, Message: err.Error() + "; retry later"}))
}

// validID reports a JSON-RPC request id MCP allows: a string or a number.
func validID(id json.RawMessage) bool {
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9'))
}

// passedMethod reports a method other than tools/* the router passes on:
// the lifecycle and notifications. resources/*, prompts/*, completion/*
// and tasks/* reach what no composition token authorizes, or (tasks/result)
// a tool's result the router would not check.
func passedMethod(method string) bool {
	switch method {
	case "initialize", "ping", "logging/setLevel":
		return true
	}
	return strings.HasPrefix(method, "notifications/")
}

// relay passes any other request through; its answer is screened like a
// tools/call's (answers for another request are not passed on).
func (rt *Router) relay(ctx context.Context, w http.ResponseWriter, r *http.Request, msg *rpcMessage, body []byte, tk *ticket) {
	var id json.RawMessage
	if msg != nil && msg.Method != "" {
		id = msg.ID
	}
	x, err := rt.send(ctx, r, body, tk)
	if err != nil {
		rt.upstreamFailed(w, r, id, err)
		return
	}
	x.rewrite(func(m []byte) []byte {
		out, _ := rt.screen(r, id, m, nil)
		return out
	})
	x.write(w)
}

// screen reads one message of the upstream's answer to the request with
// id, strictly, and returns what the client gets instead of it (nil: the
// message as it is) and whether it was refused. A notification of the
// server's passes, a request of its is refused; a response must answer id, spelt as the client
// spelt it (a client matching ids by value would take a response for
// another of its requests, or "7.0" for 7, as the answer), and onResult,
// when not nil, judges it (a result or an error).
func (rt *Router) screen(r *http.Request, id json.RawMessage, m []byte, onResult func(resp *rpcMessage) []byte) ([]byte, bool) {
	fail := func(why string) ([]byte, bool) {
		rt.cfg.Log.WarnContext(r.Context(), "upstream answer refused", "why", why, "request_id", requestID(r.Context()))
		return errorMessage(id, rpcError{Code: codeInternal, Message: "typeward route refused the upstream's answer: " + why}), true
	}
	resp, err := parseMessage(m)
	if err != nil {
		return fail("not one unambiguous JSON-RPC message (" + err.Error() + ")")
	}
	_, hasResult := resp.members["result"]
	_, hasError := resp.members["error"]
	if !hasResult && !hasError {
		if resp.ID != nil {
			// A request of the server's (sampling/createMessage,
			// elicitation/create, roots/list): a composition token
			// authorizes tool calls, not the server using the client's
			// model, its user or its files.
			return fail(fmt.Sprintf("the upstream sent a request (%.60q) typeward route does not pass on", resp.Method))
		}
		return nil, false // a notification
	}
	if hasResult && hasError {
		return fail("a response with both result and error")
	}
	if len(id) == 0 || !bytes.Equal(resp.ID, id) {
		return fail(fmt.Sprintf("a response for id %.40s, not for the request's id %.40s", resp.ID, id))
	}
	if onResult == nil {
		return nil, false
	}
	if out := onResult(resp); out != nil {
		return out, true
	}
	return nil, false
}

// upstreamFailed answers a request whose upstream exchange failed: 503
// when the answer did not fit what the router may hold, else 502.
func (rt *Router) upstreamFailed(w http.ResponseWriter, r *http.Request, id json.RawMessage, err error) {
	if errors.Is(err, errBusy) {
		rt.busy(w, r, id, err)
		return
	}
	rt.refuse(r, "upstream_unavailable")
	rt.cfg.Log.WarnContext(r.Context(), "upstream failed", "err", err, "request_id", requestID(r.Context()))
	http.Error(w, "the upstream MCP server cannot be reached", http.StatusBadGateway)
}

// list forwards tools/list and filters the answer to the token's tools.
func (rt *Router) list(ctx context.Context, w http.ResponseWriter, r *http.Request, claims *verify.Claims, msg *rpcMessage, body []byte, tk *ticket) {
	x, err := rt.send(ctx, r, body, tk)
	if err != nil {
		rt.upstreamFailed(w, r, msg.ID, err)
		return
	}
	x.rewrite(func(m []byte) []byte {
		out, _ := rt.screen(r, msg.ID, m, func(resp *rpcMessage) []byte {
			if resp.Result == nil {
				return nil
			}
			result, err := strictObject(resp.Result, "tools", "nextCursor")
			var tools []json.RawMessage
			if err == nil {
				err = json.Unmarshal(result["tools"], &tools)
			}
			if err != nil {
				return errorMessage(msg.ID, rpcError{Code: codeInternal, Message: "typeward route refused the upstream's tools/list: " + err.Error()})
			}
			kept := make([]json.RawMessage, 0, len(tools))
			for _, t := range tools {
				decl, err := strictObject(t, "name")
				var name string
				if err == nil && json.Unmarshal(decl["name"], &name) == nil && verify.ToolAllowed(claims, name) {
					kept = append(kept, t)
				}
			}
			result["tools"], _ = json.Marshal(kept)
			resp.members["result"], _ = json.Marshal(result)
			out, _ := json.Marshal(resp.members)
			return out
		})
		return out
	})
	x.write(w)
}

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

	x, err := rt.send(ctx, r, body, tk)
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
	outcome := "ok"
	var content any
	answered := false
	x.rewrite(func(m []byte) []byte {
		var violation []Failure
		why, logMsg := "that breaks its outputSchema", "result breaks the pinned outputSchema"
		out, refused := rt.screen(r, msg.ID, m, func(resp *rpcMessage) []byte {
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
		if !refused {
			return nil
		}
		if violation != nil {
			outcome = "output_violation"
			rt.metrics.outputViolations.WithLabelValues(params.Name).Inc()
			rt.cfg.Log.WarnContext(r.Context(), logMsg, "tool", params.Name, "version", ref.Version,
				"digest", ref.Digest, "violation", violation[0].Message, "request_id", requestID(r.Context()))
		} else if outcome != "output_violation" {
			outcome = "upstream_error"
		}
		return out
	})
	switch {
	case !x.ok():
		outcome = "upstream_error" // refused at the HTTP level: not run
		rt.order.abort(step)
	case !answered:
		// A 2xx without an answer to the call: it may have run, and it
		// feeds nothing downstream.
		outcome = "upstream_error"
	case outcome == "ok":
		rt.order.done(step, content)
	default:
		rt.order.abort(step) // an error, a tool error, a refused result: not counted
	}
	rt.calls(params.Name, outcome)
	x.write(w)
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
	var blocks []json.RawMessage
	if err := json.Unmarshal(content, &blocks); err != nil {
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
