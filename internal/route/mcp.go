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
	"time"

	"github.com/typeward/typeward/verify"
)

// serveMCP runs after verify's middleware admitted the request: the token
// is valid and names the tool a tools/call calls.
func (rt *Router) serveMCP(w http.ResponseWriter, r *http.Request) {
	claims, _ := verify.ClaimsFromContext(r.Context())
	switch r.Method {
	case http.MethodGet:
		rt.stream(w, r, claims)
		return
	case http.MethodPost, http.MethodDelete:
	default:
		rt.refuse(r, "method_not_allowed")
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "typeward route answers GET, POST and DELETE", http.StatusMethodNotAllowed)
		return
	}
	// The server's write timeout is off (a GET stream may last): a POST's
	// answer has the upstream's time and a little more.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(rt.cfg.UpstreamTimeout + 10*time.Second))
	body, err := io.ReadAll(r.Body)
	if err != nil {
		rt.refuse(r, "too_large")
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), rt.cfg.UpstreamTimeout)
	defer cancel()
	p := peerOf(r, claims)
	if len(bytes.TrimSpace(body)) == 0 {
		tk, ok := rt.admit(w, r, nil, 0)
		if !ok {
			return
		}
		defer tk.done()
		rt.pass(ctx, w, r, nil, tk, rt.newJudge(r, p, nil))
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
	setMethod(r.Context(), msg.Method)
	if msg.Method != "" && (msg.ID != nil || msg.Method == "tools/call") && !validID(msg.ID) {
		// A tools/call notification might run the tool with no answer to
		// check (and --enforce-order would give the run back).
		rt.refuse(r, "bad_request")
		writeRPCError(w, nil, rpcError{Code: codeInvalidRequest, Message: fmt.Sprintf("%.100s needs an id, a string or a number", msg.Method)})
		return
	}
	switch m := msg.Method; {
	case m == "":
		if !rt.solicited(w, r, p, msg) {
			return
		}
	case m == "tools/call", m == "tools/list":
	case scoped(m):
		scope, why, err := grantsOf(claims).authorize(m, msg.Params)
		if err != nil {
			rt.refuse(r, "bad_request")
			http.Error(w, "malformed or ambiguous params: "+err.Error(), http.StatusBadRequest)
			return
		}
		if scope != "" {
			rt.refuse(r, "insufficient_scope")
			setScope(r.Context(), scope)
			rt.verifier.Challenge(w, verify.Scheme(claims.TokenType()), http.StatusForbidden, "insufficient_scope", why, scope)
			return
		}
	case m == "notifications/cancelled":
		if id := cancelledID(msg.Params); id == "" || !rt.talk.pending(p, id) {
			// Tied to the call it cancels: one the router is not relaying
			// is not the client's to cancel (or is over); MCP has the
			// receiver ignore such a cancellation, and so the router does.
			rt.refuse(r, "unknown_request")
			w.WriteHeader(http.StatusAccepted)
			return
		}
	case passedMethod(m):
	default:
		rt.refuse(r, "method_not_allowed")
		writeRPCError(w, msg.ID, rpcError{Code: codeMethodNotFound,
			Message: fmt.Sprintf("typeward route does not pass %.100q on: a composition token opens tools, and with their scopes resources, prompts and completions (initialize, ping, logging/setLevel, tools/*, resources/*, prompts/*, completion/complete and notifications only)", m)})
		return
	}
	tk, ok := rt.admit(w, r, msg.ID, len(body))
	if !ok {
		return
	}
	defer tk.done()
	if msg.Method != "" && msg.ID != nil {
		defer rt.talk.begin(p, string(msg.ID))()
	}
	switch msg.Method {
	case "tools/call":
		rt.call(ctx, w, r, claims, msg, body, tk)
	case "tools/list":
		rt.list(ctx, w, r, claims, msg, body, tk)
	default:
		j := rt.newJudge(r, p, msg)
		g := grantsOf(claims)
		array, key, open := g.listFilter(msg.Method)
		j.each = func(m []byte) []byte {
			out, _ := rt.screen(j, m, func(resp *rpcMessage) []byte {
				if open == nil || !g.narrowed(msg.Method) || resp.Result == nil {
					return nil
				}
				return filterListing(resp, msg.ID, array, key, open)
			})
			return out
		}
		rt.pass(ctx, w, r, body, tk, j)
	}
}

// solicited reports a client's response (to a request of the server's)
// the router may pass on: one answering a request it passed to this
// client in this session; else it answers 400.
func (rt *Router) solicited(w http.ResponseWriter, r *http.Request, p peer, msg *rpcMessage) bool {
	_, hasResult := msg.members["result"]
	_, hasError := msg.members["error"]
	if hasResult == hasError || !validID(msg.ID) {
		rt.refuse(r, "bad_request")
		http.Error(w, "neither a request, a notification nor a response (one of result and error, a string or number id)", http.StatusBadRequest)
		return false
	}
	if !rt.talk.answered(p, string(msg.ID)) {
		rt.refuse(r, "unsolicited_answer")
		http.Error(w, fmt.Sprintf("typeward route passed no request of the server's with id %.40s to this client and session (or it expired): an answer to it is not passed on", msg.ID), http.StatusBadRequest)
		return false
	}
	return true
}

// cancelledID is the requestId of a notifications/cancelled, as spelt.
func cancelledID(params json.RawMessage) string {
	obj, err := strictObject(params, "requestId", "reason")
	if err != nil || !validID(obj["requestId"]) {
		return ""
	}
	return string(obj["requestId"])
}

// stream relays a GET: the session's stream of the server's messages, or
// (Last-Event-ID) the rest of a stream the router relayed, judged as that
// stream was, so a resumed answer is checked like the original. A stream
// holds one of --max-streams, not an exchange slot, and ends after
// --stream-idle-timeout without a byte.
func (rt *Router) stream(w http.ResponseWriter, r *http.Request, claims *verify.Claims) {
	p := peerOf(r, claims)
	last := r.Header.Values("Last-Event-Id")
	var j *judge
	switch len(last) {
	case 0:
		j = rt.newJudge(r, p, nil)
	case 1:
		var ok bool
		if j, ok = rt.talk.resumes(p, last[0]); !ok {
			rt.refuse(r, "unknown_event")
			http.Error(w, fmt.Sprintf("typeward route relayed no event %.80q to this client and session: it resumes only the streams it relayed, to check what they carry", last[0]), http.StatusBadRequest)
			return
		}
	default:
		rt.refuse(r, "bad_request")
		http.Error(w, "more than one Last-Event-ID", http.StatusBadRequest)
		return
	}
	tk, err := rt.limit.stream()
	if err != nil {
		rt.busy(w, r, nil, err)
		return
	}
	defer tk.done()
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Now().Add(rt.cfg.StreamIdleTimeout))
	req, err := rt.upstreamRequest(r.Context(), r, nil)
	if err == nil {
		if len(last) == 1 {
			req.Header.Set("Last-Event-Id", last[0])
		}
		_, err = rt.forward(w, req, tk, j, rt.cfg.StreamIdleTimeout)
	}
	if err != nil {
		rt.upstreamFailed(w, r, nil, err)
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

// passedMethod reports a method the router passes on with any valid
// token: the lifecycle and notifications (notifications/cancelled tied to
// its call). tools/*, and the methods a scope opens, are judged apart;
// tasks/* stay refused: tasks/result would carry a tool's result the
// router does not check.
func passedMethod(method string) bool {
	switch method {
	case "initialize", "ping", "logging/setLevel":
		return true
	}
	return strings.HasPrefix(method, "notifications/")
}

// newJudge is the judge of the answer to msg (nil: a request answering
// nothing, such as a DELETE or a GET stream) from p's upstream: responses
// must answer msg's id, the server's notifications pass, and its requests
// are refused unless each says otherwise.
func (rt *Router) newJudge(r *http.Request, p peer, msg *rpcMessage) *judge {
	j := &judge{r: r, peer: p}
	if msg != nil {
		for _, v := range msg.members { // its closures keep the request's parts
			j.retained += int64(len(v))
		}
	}
	if msg != nil && msg.Method != "" && msg.ID != nil {
		j.id, j.call, j.progress = msg.ID, msg.Method == "tools/call", progressToken(msg.Params)
	}
	j.each = func(m []byte) []byte {
		out, _ := rt.screen(j, m, nil)
		return out
	}
	return j
}

// progressToken is params._meta.progressToken as spelt, nil when absent.
func progressToken(params json.RawMessage) json.RawMessage {
	obj, err := strictObject(params)
	if err != nil || obj["_meta"] == nil {
		return nil
	}
	meta, err := strictObject(obj["_meta"], "progressToken")
	if err != nil || !validID(meta["progressToken"]) {
		return nil
	}
	return meta["progressToken"]
}

// pass sends the request upstream and relays the answer, judged by j.
func (rt *Router) pass(ctx context.Context, w http.ResponseWriter, r *http.Request, body []byte, tk *ticket, j *judge) {
	req, err := rt.upstreamRequest(ctx, r, body)
	if err == nil {
		_, err = rt.forward(w, req, tk, j, 0)
	}
	if err != nil {
		rt.upstreamFailed(w, r, j.id, err)
	}
}

// screen reads one message of the upstream's answer strictly and returns
// what the client gets instead of it (nil: the message as it is; dropped:
// nothing) and whether it was refused. A notification of the server's
// passes (progress only with the request's own token); a request of its
// passes only inside a tool call, with --server-requests pass (its answer
// is then expected); a response must answer j.id, spelt as the client
// spelt it (a client matching ids by value would take a response for
// another of its requests, or "7.0" for 7, as the answer), and onResult,
// when not nil, judges it (a result or an error).
func (rt *Router) screen(j *judge, m []byte, onResult func(resp *rpcMessage) []byte) ([]byte, bool) {
	fail := func(why string) ([]byte, bool) {
		rt.cfg.Log.WarnContext(j.r.Context(), "upstream answer refused", "why", why, "request_id", requestID(j.r.Context()))
		if j.id == nil {
			return dropped, true // a GET stream: no request to answer with an error
		}
		j.responded.Store(true)
		return errorMessage(j.id, rpcError{Code: codeInternal, Message: "typeward route refused the upstream's answer: " + why}), true
	}
	resp, err := parseMessage(m)
	if err != nil {
		return fail("not one unambiguous JSON-RPC message (" + err.Error() + ")")
	}
	_, hasResult := resp.members["result"]
	_, hasError := resp.members["error"]
	if !hasResult && !hasError {
		if resp.ID != nil {
			return rt.serverRequest(j, resp, fail)
		}
		if resp.Method == "notifications/progress" && (j.progress == nil || !bytes.Equal(progressOf(resp.Params), j.progress)) {
			// Tied to the request it reports on: another's progress token
			// is not this stream's to carry.
			rt.cfg.Log.WarnContext(j.r.Context(), "upstream progress dropped: not the request's progress token", "request_id", requestID(j.r.Context()))
			return dropped, true
		}
		return nil, false // a notification
	}
	if hasResult && hasError {
		return fail("a response with both result and error")
	}
	if j.id == nil {
		return fail(fmt.Sprintf("a response (id %.40s) on a stream answering no request", resp.ID))
	}
	if !bytes.Equal(resp.ID, j.id) {
		return fail(fmt.Sprintf("a response for id %.40s, not for the request's id %.40s", resp.ID, j.id))
	}
	j.responded.Store(true)
	if onResult == nil {
		return nil, false
	}
	if out := onResult(resp); out != nil {
		return out, true
	}
	return nil, false
}

// serverRequest judges a request of the server's inside an answer:
// sampling/createMessage, elicitation/create, roots/list (and ping) pass
// inside an authorized tool call, where the host mediates them with its
// person as MCP asks, unless --server-requests refuse; the router then
// expects the client's answer to it, and only that. Any other, and any
// outside a tool call, is refused.
func (rt *Router) serverRequest(j *judge, req *rpcMessage, fail func(string) ([]byte, bool)) ([]byte, bool) {
	switch req.Method {
	case "sampling/createMessage", "elicitation/create", "roots/list", "ping":
	default:
		return fail(fmt.Sprintf("the upstream sent a request (%.60q) typeward route does not pass on", req.Method))
	}
	switch {
	case !validID(req.ID):
		return fail(fmt.Sprintf("the upstream sent a request (%.60q) with an id that is neither a string nor a number", req.Method))
	case !j.call || j.id == nil:
		return fail(fmt.Sprintf("the upstream sent a request (%.60q) outside a tool call: typeward route passes the server's requests only inside an authorized tools/call", req.Method))
	case rt.cfg.ServerRequests == ServerRequestsRefuse:
		return fail(fmt.Sprintf("the upstream sent a request (%.60q) inside the tool call, and typeward route runs with --server-requests refuse", req.Method))
	}
	rt.talk.asked(j.peer, string(req.ID))
	return nil, false
}

// progressOf is a progress notification's progressToken, as spelt.
func progressOf(params json.RawMessage) json.RawMessage {
	obj, err := strictObject(params, "progressToken")
	if err != nil {
		return nil
	}
	return obj["progressToken"]
}

// filterListing cuts a listing (resources, resource templates, prompts)
// down to the entries a narrowed token opens.
func filterListing(resp *rpcMessage, id json.RawMessage, array, key string, open func(string) bool) []byte {
	result, err := strictObject(resp.Result, array, "nextCursor")
	var entries []json.RawMessage
	if err == nil {
		err = json.Unmarshal(result[array], &entries)
	}
	if err != nil {
		return errorMessage(id, rpcError{Code: codeInternal, Message: "typeward route refused the upstream's listing: " + err.Error()})
	}
	kept := make([]json.RawMessage, 0, len(entries))
	for _, e := range entries {
		obj, err := strictObject(e, key)
		var v string
		if err == nil && json.Unmarshal(obj[key], &v) == nil && open(v) {
			kept = append(kept, e)
		}
	}
	result[array], _ = json.Marshal(kept)
	resp.members["result"], _ = json.Marshal(result)
	out, _ := json.Marshal(resp.members)
	return out
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
	j := rt.newJudge(r, peerOf(r, claims), msg)
	j.each = func(m []byte) []byte {
		out, _ := rt.screen(j, m, func(resp *rpcMessage) []byte {
			if resp.Result == nil {
				return nil
			}
			return filterListing(resp, msg.ID, "tools", "name", func(name string) bool { return verify.ToolAllowed(claims, name) })
		})
		return out
	}
	rt.pass(ctx, w, r, body, tk, j)
}
