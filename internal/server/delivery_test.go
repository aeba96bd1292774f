package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A client that hangs up while its token's audit record waits on a
// stalled database never receives the token: the log must not say it was
// issued. The record arrives once the stall ends, as not delivered, with
// the jti of the withheld token.
func TestHungUpTokenIsAuditedNotDelivered(t *testing.T) {
	t.Parallel()
	h := start(t, database, nil)
	admin := h.adminToken()
	ctx := context.Background()
	locker, err := pgx.Connect(ctx, h.cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE oauth_issuances IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}

	impatient := &http.Client{Timeout: 500 * time.Millisecond}
	req, _ := http.NewRequest(http.MethodPost, h.base+"/oauth2/token",
		strings.NewReader(url.Values{"grant_type": {"client_credentials"}, "scope": {"typeward:admin"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(h.adminID, h.adminSK)
	if resp, err := impatient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the token request answered %s while the audit log was locked", resp.Status)
	}
	time.Sleep(200 * time.Millisecond) // the server notices the hang-up
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	type page struct {
		Items []struct{ Outcome, Reason, JTI string }
	}
	var got page
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		got = page{}
		h.admin(http.MethodGet, "/admin/v1/issuances?client_id="+url.QueryEscape(h.adminID), admin, nil).json(t, &got)
		// The INSERT may commit before its correction does: wait for both.
		if len(got.Items) == 2 && got.Items[0].Outcome != "issued" {
			break
		}
	}
	if len(got.Items) != 2 {
		t.Fatalf("the admin client's records: %+v, want the first token's and the withheld one's", got.Items)
	}
	if r := got.Items[0]; r.Outcome != "error" || r.Reason != "not_delivered" || r.JTI == "" {
		t.Errorf("the withheld token is recorded as %+v, want error/not_delivered with its jti", r)
	}
	if r := got.Items[1]; r.Outcome != "issued" {
		t.Errorf("the delivered token is recorded as %+v", r)
	}
}
