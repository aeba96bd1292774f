package console

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/users"
)

func itoa(n int) string { return strconv.Itoa(n) }

// pendingView is one pending request on the Approvals page.
type pendingView struct {
	*approval.Request
	ClientName string
	Graph      *graph
	ExpiresIn  string
}

func (c *console) approvals(w http.ResponseWriter, r *http.Request, s *session) {
	c.approvalsPage(w, r, s, http.StatusOK, "")
}

// approvalsPage renders the pending requests, with a problem to show
// when a decision was refused.
func (c *console) approvalsPage(w http.ResponseWriter, r *http.Request, s *session, status int, problem string) {
	now := c.cfg.Now()
	list, err := c.cfg.Approvals.Pending(r.Context(), now, approval.MaxListed)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	views := make([]pendingView, len(list))
	for i, req := range list {
		v := pendingView{Request: req, ClientName: req.ClientID, ExpiresIn: req.ExpiresAt.Sub(now).Round(time.Second).String()}
		// The issues are graded under the client's validation mode, as
		// the Approve click and the redemption judge them (lenient when
		// the client is gone: the click then refuses anyway).
		mode := grading.Lenient
		if cl, err := c.cfg.Clients.Get(r.Context(), req.ClientID); err == nil {
			v.ClientName, mode = cl.Name, cl.Validation.OrLenient()
		}
		v.Graph = c.draw.fromDetails(r.Context(), req.Details, mode)
		views[i] = v
	}
	data := map[string]any{"User": s.user, "CSRF": s.CSRF, "Pending": views,
		"CanDecide": s.user.Role == users.Approver, "Problem": problem}
	// The notice is one of the console's own words, never the query's
	// text: a link must not make the console say anything else.
	if done := r.URL.Query().Get("done"); problem == "" && (done == "approved" || done == "denied") {
		data["Notice"] = done
	}
	c.render(w, r, status, "approvals", data)
}

// decide applies the Approve or Deny button of one request.
func (c *console) decide(w http.ResponseWriter, r *http.Request, s *session) {
	if s.user.Role != users.Approver {
		http.Error(w, "only approvers decide requests", http.StatusForbidden)
		return
	}
	var approve bool
	switch r.PostFormValue("decision") {
	case "approve":
		approve = true
	case "deny":
	default:
		http.Error(w, "decision must be approve or deny", http.StatusBadRequest)
		return
	}
	id := r.PathValue("id")
	err := approval.Decide(r.Context(), c.cfg.Approvals, c.cfg.Revalidator, id, approval.Decision{Approve: approve, By: s.user.Name,
		At: c.cfg.Now(), Reason: r.PostFormValue("reason")})
	switch {
	case errors.Is(err, approval.ErrNoLongerValid):
		// The request stays pending: the approver sees why, and may deny it.
		c.approvalsPage(w, r, s, http.StatusConflict, "Not approved: "+err.Error())
		return
	case errors.Is(err, approval.ErrNotFound), errors.Is(err, approval.ErrNotPending):
		http.Error(w, "this request is no longer pending (decided elsewhere, or expired)", http.StatusConflict)
		return
	case err != nil && errors.Unwrap(err) == nil: // a bound of the decision
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	case err != nil:
		c.fail(w, r, err)
		return
	}
	done := "denied"
	if approve {
		done = "approved"
	}
	http.Redirect(w, r, Prefix+"/approvals?done="+done, http.StatusSeeOther)
}
