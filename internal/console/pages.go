package console

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/audit"
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
	now := c.cfg.Now()
	list, err := c.cfg.Approvals.Pending(r.Context(), now, approval.MaxListed)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	views := make([]pendingView, len(list))
	for i, req := range list {
		v := pendingView{Request: req, ClientName: req.ClientID, ExpiresIn: req.ExpiresAt.Sub(now).Round(time.Second).String()}
		if cl, err := c.cfg.Clients.Get(r.Context(), req.ClientID); err == nil {
			v.ClientName = cl.Name
		}
		v.Graph = c.draw.fromDetails(r.Context(), req.Details)
		views[i] = v
	}
	c.render(w, r, http.StatusOK, "approvals", map[string]any{"User": s.user, "CSRF": s.CSRF, "Pending": views,
		"CanDecide": s.user.Role == users.Approver, "Notice": r.URL.Query().Get("done")})
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
	err := approval.Decide(r.Context(), c.cfg.Approvals, id, approval.Decision{Approve: approve, By: s.user.Name,
		At: c.cfg.Now(), Reason: r.PostFormValue("reason")})
	switch {
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

// bar is one bar of a chart.
type bar struct {
	X, Y, W, H int
	Label      string
	Value      int
	Class      string
}

// activityHours is the window of the Activity page's chart.
const activityHours = 24

func (c *console) activity(w http.ResponseWriter, r *http.Request, s *session) {
	now := c.cfg.Now().UTC()
	since := now.Truncate(time.Hour).Add(-(activityHours - 1) * time.Hour)
	var records []audit.Issuance
	q := audit.Query{Since: since, Limit: audit.MaxLimit}
	for range 4 { // at most 2000 records drawn
		page, err := c.cfg.Audit.Query(r.Context(), q)
		if err != nil {
			c.fail(w, r, err)
			return
		}
		records = append(records, page.Items...)
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	issued, denied := make([]int, activityHours), make([]int, activityHours)
	reasons := map[string]int{}
	var refusals []audit.Issuance
	for _, rec := range records {
		h := int(rec.Time.Sub(since) / time.Hour)
		if h < 0 || h >= activityHours {
			continue
		}
		if rec.Outcome == audit.Issued {
			issued[h]++
			continue
		}
		denied[h]++
		reasons[rec.Reason]++
		if len(refusals) < 20 {
			refusals = append(refusals, rec)
		}
	}
	peak := 1
	for h := range activityHours {
		peak = max(peak, issued[h]+denied[h])
	}
	const chartH, barW = 160, 22
	var rate []bar
	for h := range activityHours {
		hi, hd := issued[h]*chartH/peak, denied[h]*chartH/peak
		x := 40 + h*(barW+4)
		label := since.Add(time.Duration(h) * time.Hour).Format("15h")
		rate = append(rate, bar{X: x, Y: 10 + chartH - hi - hd, W: barW, H: hd, Value: denied[h], Class: "denied", Label: label},
			bar{X: x, Y: 10 + chartH - hi, W: barW, H: hi, Value: issued[h], Class: "issued", Label: label})
	}
	type reason struct {
		Name  string
		Count int
	}
	var rs []reason
	for k, v := range reasons {
		rs = append(rs, reason{k, v})
	}
	sort.Slice(rs, func(i, j int) bool {
		return rs[i].Count > rs[j].Count || rs[i].Count == rs[j].Count && rs[i].Name < rs[j].Name
	})
	if len(rs) > 12 {
		rs = rs[:12]
	}
	var reasonBars []bar
	top := 1
	if len(rs) > 0 {
		top = rs[0].Count
	}
	for i, x := range rs {
		reasonBars = append(reasonBars, bar{X: 200, Y: 10 + i*26, W: max(2, x.Count*400/top), H: 18, Label: x.Name, Value: x.Count})
	}

	type stored struct {
		Name  string
		Stale bool
		Graph *graph
	}
	comps, err := c.cfg.Registry.ListCompositions(r.Context())
	if err != nil {
		c.fail(w, r, err)
		return
	}
	staleList, err := c.cfg.Registry.StaleCompositions(r.Context())
	if err != nil {
		c.fail(w, r, err)
		return
	}
	stale := map[string]bool{}
	for _, sc := range staleList {
		stale[sc.Name] = true
	}
	var drawn []stored
	for i, sc := range comps {
		if i >= 20 {
			break
		}
		drawn = append(drawn, stored{Name: sc.Name, Stale: stale[sc.Name], Graph: c.draw.fromDocument(r.Context(), sc.Definition)})
	}
	total := 0
	for h := range activityHours {
		total += issued[h] + denied[h]
	}
	c.render(w, r, http.StatusOK, "activity", map[string]any{"User": s.user, "CSRF": s.CSRF,
		"Rate": rate, "RateWidth": 40 + activityHours*(barW+4) + 10, "ChartHeight": chartH + 40,
		"Reasons": reasonBars, "ReasonsHeight": 20 + 26*max(1, len(reasonBars)), "Refusals": refusals,
		"Compositions": drawn, "Window": fmt.Sprintf("%d decisions since %s", total, since.Format("2006-01-02 15:04Z"))})
}
