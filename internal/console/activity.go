package console

import (
	"fmt"
	"net/http"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/grading"
)

// Bounds of the Activity page: the chart's window, the refusal reasons
// drawn, the latest refusals listed, the stored compositions drawn.
const (
	activityHours   = 24
	activityReasons = 12
	latestRefusals  = 20
	drawnStored     = 20
)

// bar is one bar of a chart.
type bar struct {
	X, Y, W, H int
	Label      string
	Value      int
	Class      string
}

// refusalView is one of the latest refusals with its issues.
type refusalView struct {
	audit.Issuance
	// ClientName is the registered client's name; "" for an id no client
	// has (a refusal records the id a request claimed).
	ClientName string
	Issues     []issueView
}

// issueView is an audited issue as the page shows it: where, why, and
// the witness as JSON text.
type issueView struct {
	audit.Issue
	Where, Witness string
}

func viewRefusal(rec audit.Issuance) refusalView {
	v := refusalView{Issuance: rec}
	for _, is := range rec.Issues {
		iv := issueView{Issue: is, Where: is.FieldPath, Witness: is.WitnessClipped}
		if iv.Where == "" {
			iv.Where = is.Edge
		}
		if is.Witness != nil {
			iv.Witness = string(is.Witness)
		}
		v.Issues = append(v.Issues, iv)
	}
	return v
}

func (c *console) activity(w http.ResponseWriter, r *http.Request, s *session) {
	now := c.cfg.Now().UTC()
	since := now.Truncate(time.Hour).Add(-(activityHours - 1) * time.Hour)
	sum, err := c.cfg.Audit.Aggregate(r.Context(), audit.Window{Since: since, Until: since.Add(activityHours * time.Hour)})
	if err != nil {
		c.fail(w, r, err)
		return
	}
	latest, err := c.cfg.Audit.Query(r.Context(), audit.Query{Outcome: audit.Denied, Limit: latestRefusals})
	if err != nil {
		c.fail(w, r, err)
		return
	}
	refusals := make([]refusalView, len(latest.Items))
	names := map[string]string{}
	for i, rec := range latest.Items {
		refusals[i] = viewRefusal(rec)
		name, ok := names[rec.ClientID]
		if !ok {
			if cl, err := c.cfg.Clients.Get(r.Context(), rec.ClientID); err == nil {
				name = cl.Name
			}
			names[rec.ClientID] = name
		}
		refusals[i].ClientName = name
	}
	issued, refused := make([]int, activityHours), make([]int, activityHours)
	total := 0
	for _, hc := range sum.Hours {
		h := int(hc.Hour.Sub(since) / time.Hour)
		if h < 0 || h >= activityHours {
			continue
		}
		total += hc.Count
		if hc.Outcome == audit.Issued {
			issued[h] += hc.Count
		} else {
			refused[h] += hc.Count
		}
	}
	rate, chartH, rateW := rateBars(since, issued, refused)
	reasons := sum.Reasons[:min(len(sum.Reasons), activityReasons)]
	var reasonBars []bar
	for i, x := range reasons {
		reasonBars = append(reasonBars, bar{X: 200, Y: 10 + i*26, W: max(2, x.Count*400/reasons[0].Count), H: 18, Label: x.Reason, Value: x.Count})
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
	// A stored composition belongs to no client: its issues are shown
	// graded lenient, the default mode.
	var drawn []stored
	for _, sc := range comps[:min(len(comps), drawnStored)] {
		drawn = append(drawn, stored{Name: sc.Name, Stale: stale[sc.Name], Graph: c.draw.fromDocument(r.Context(), sc.Definition, grading.Lenient)})
	}
	c.render(w, r, http.StatusOK, "activity", map[string]any{"User": s.user, "CSRF": s.CSRF,
		"Rate": rate, "RateWidth": rateW, "ChartHeight": chartH + 40,
		"Reasons": reasonBars, "ReasonsHeight": 20 + 26*max(1, len(reasonBars)), "Refusals": refusals,
		"Compositions": drawn, "Window": fmt.Sprintf("%d decisions since %s", total, since.Format("2006-01-02 15:04Z"))})
}

// rateBars draws the stacked bars of issued and refused decisions per
// hour from since, scaled to the busiest hour.
func rateBars(since time.Time, issued, refused []int) (bars []bar, height, width int) {
	const chartH, barW = 160, 22
	peak := 1
	for h := range issued {
		peak = max(peak, issued[h]+refused[h])
	}
	for h := range issued {
		hi, hd := issued[h]*chartH/peak, refused[h]*chartH/peak
		x := 40 + h*(barW+4)
		label := since.Add(time.Duration(h) * time.Hour).Format("15h")
		bars = append(bars, bar{X: x, Y: 10 + chartH - hi - hd, W: barW, H: hd, Value: refused[h], Class: "denied", Label: label},
			bar{X: x, Y: 10 + chartH - hi, W: barW, H: hi, Value: issued[h], Class: "issued", Label: label})
	}
	return bars, chartH, 40 + len(issued)*(barW+4) + 10
}
