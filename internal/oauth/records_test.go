package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/audit"
)

var update = flag.Bool("update", false, "rewrite testdata/records.golden.json")

// TestDecisionRecords pins the audit record of every kind of token and
// backchannel decision, field by field, so that the way the token path is
// built may change while what it records may not: each step of the path
// contributes its part (the client, the composition's verdict, the pending
// approval, the grant, the token) and a refusal keeps what was known when
// it was refused. Random values (record id, jti) are reduced to whether
// they are set.
func TestDecisionRecords(t *testing.T) {
	valid, invalid := exampleDoc(t, "pipeline-valid.json"), exampleDoc(t, "pipeline-invalid.json")
	storedID := `[{"type":"mcp_composition","composition_id":"stored"}]`
	type step struct {
		name        string
		backchannel bool
		client      string // creds of this client; "" none
		admit       bool   // the allow-list is checked before validation (Service.Tools)
		form        []string
	}
	steps := []step{
		{name: "oversized parameter", client: "app", form: []string{"grant_type", "client_credentials", "scope", strings.Repeat("s", 5000)}},
		{name: "oversized client id", form: []string{"grant_type", "client_credentials", "client_id", strings.Repeat("c", 300)}},
		{name: "no client", form: []string{"grant_type", "client_credentials"}},
		{name: "wrong secret", client: "app:wrong", form: []string{"grant_type", "client_credentials"}},
		{name: "unknown client", client: "nobody", form: []string{"grant_type", "client_credentials"}},
		{name: "disabled client", client: "off", form: []string{"grant_type", "client_credentials"}},
		{name: "no grant type", client: "app"},
		{name: "unsupported grant type", client: "app", form: []string{"grant_type", "password"}},
		{name: "grant not registered", client: "host", form: []string{"grant_type", "client_credentials", "authorization_details", details(valid)}},
		{name: "repeated grant type", client: "app", form: []string{"grant_type", "client_credentials", "grant_type", "client_credentials"}},
		{name: "nothing asked", client: "app", form: []string{"grant_type", "client_credentials"}},
		{name: "scope token", client: "admin", form: []string{"grant_type", "client_credentials", "scope", "typeward:admin"}},
		{name: "scope token for a resource", client: "app", form: []string{"grant_type", "client_credentials", "scope", "typeward:admin", "resource", routerAud}},
		{name: "tool scope", client: "app", form: []string{"grant_type", "client_credentials", "scope", "mcp:tool:db_query"}},
		{name: "scope not allowed", client: "admin", form: []string{"grant_type", "client_credentials", "scope", "other"}},
		{name: "issued", client: "app", form: []string{"grant_type", "client_credentials", "resource", routerAud, "authorization_details", details(valid)}},
		{name: "issued without resource", client: "app", form: []string{"grant_type", "client_credentials", "authorization_details", details(valid)}},
		{name: "issued for a stored composition", client: "app", form: []string{"grant_type", "client_credentials", "authorization_details", storedID}},
		{name: "resource required", client: "multi", form: []string{"grant_type", "client_credentials", "authorization_details", details(valid)}},
		{name: "resource not allowed", client: "app", form: []string{"grant_type", "client_credentials", "resource", "https://elsewhere.example.com", "authorization_details", details(valid)}},
		{name: "resource is the issuer", client: "legacy", form: []string{"grant_type", "client_credentials", "resource", issuer, "authorization_details", details(valid)}},
		{name: "malformed details", client: "app", form: []string{"grant_type", "client_credentials", "authorization_details", "{"}},
		{name: "malformed composition", client: "app", form: []string{"grant_type", "client_credentials", "authorization_details", details(`{"nodes":1}`)}},
		{name: "unknown stored composition", client: "app", form: []string{"grant_type", "client_credentials", "authorization_details", `[{"type":"mcp_composition","composition_id":"nope"}]`}},
		{name: "type mismatch", client: "app", form: []string{"grant_type", "client_credentials", "authorization_details", details(invalid)}},
		{name: "strict refusal", client: "rigorous", form: []string{"grant_type", "client_credentials", "authorization_details", details(valid)}},
		{name: "outside the allow-list", client: "narrow", form: []string{"grant_type", "client_credentials", "authorization_details", details(valid)}},
		{name: "outside the allow-list, before validation", admit: true, client: "narrow", form: []string{"grant_type", "client_credentials", "authorization_details", details(" " + valid)}},
		{name: "stored, outside the allow-list", client: "narrow", form: []string{"grant_type", "client_credentials", "authorization_details", storedID}},
		{name: "approval required", client: "careful", form: []string{"grant_type", "client_credentials", "authorization_details", details(valid)}},
		{name: "ciba without auth_req_id", client: "careful", form: []string{"grant_type", GrantTypeCIBA}},
		{name: "ciba unknown auth_req_id", client: "careful", form: []string{"grant_type", GrantTypeCIBA, "auth_req_id", "nope"}},
		{name: "backchannel wrong secret", backchannel: true, client: "careful:wrong", form: []string{"authorization_details", details(valid)}},
		{name: "backchannel without details", backchannel: true, client: "careful"},
		{name: "backchannel type mismatch", backchannel: true, client: "careful", form: []string{"authorization_details", details(invalid)}},
		{name: "backchannel outside the allow-list", backchannel: true, client: "narrow", form: []string{"authorization_details", details(valid)}},
		{name: "backchannel outside the allow-list, before validation", admit: true, backchannel: true, client: "narrow", form: []string{"authorization_details", details("  " + valid)}},
		{name: "backchannel bad expiry", backchannel: true, client: "careful", form: []string{"authorization_details", details(valid), "requested_expiry", "5"}},
	}
	f := newCIBAFixture(t)
	f.svc.Limiter = nil
	ctx := context.Background()
	call := func(s step) error {
		var authorization string
		if s.client != "" {
			id, pw, wrong := strings.Cut(s.client, ":")
			authorization = creds(id)
			if wrong {
				authorization = basicAuth(id, pw)
			}
		}
		f.svc.Tools = nil
		if s.admit {
			f.svc.Tools = f.registry
		}
		var err error
		if s.backchannel {
			_, err = f.svc.BackchannelAuthorize(ctx, form(s.form...), authorization)
		} else {
			_, err = f.svc.Token(ctx, form(s.form...), authorization)
		}
		return err
	}
	type entry struct {
		Step   string          `json:"step"`
		Error  string          `json:"error"`
		Record *audit.Issuance `json:"record"` // nil: not audited
	}
	var got []entry
	seen := 0
	run := func(name string, err error) {
		e := entry{Step: name, Error: code(err)}
		if all := f.decisions(t); len(all) > seen {
			rec := all[len(all)-1]
			seen = len(all)
			rec.ID, rec.Time = "", time.Time{}
			for _, v := range []*string{&rec.JTI, &rec.AuthReqID} {
				if *v != "" {
					*v = "set"
				}
			}
			e.Record = &rec
		}
		got = append(got, e)
	}
	for _, s := range steps {
		run(s.name, call(s))
	}

	// The CIBA grant's life: pending (not audited), too fast, approved and
	// redeemed, redeemed again; another client's id; a denied request.
	bc := f.request(t, "careful", "binding_message", "nightly report")
	poll := func(name, id, client string) {
		_, err := f.svc.Token(ctx, form("grant_type", GrantTypeCIBA, "auth_req_id", id), creds(client))
		run(name, err)
	}
	poll("ciba pending", bc.AuthReqID, "careful")
	poll("ciba too fast", bc.AuthReqID, "careful")
	poll("ciba another client's", bc.AuthReqID, "app")
	f.advance(3 * time.Second)
	if err := approval.Decide(ctx, f.store, f.svc, bc.AuthReqID, approval.Decision{Approve: true, By: "alice", At: f.at()}); err != nil {
		t.Fatal(err)
	}
	poll("ciba redeemed", bc.AuthReqID, "careful")
	poll("ciba redeemed again", bc.AuthReqID, "careful")
	denied := f.request(t, "careful")
	if err := approval.Decide(ctx, f.store, f.svc, denied.AuthReqID, approval.Decision{By: "bob", At: f.at(), Reason: "not today"}); err != nil {
		t.Fatal(err)
	}
	poll("ciba denied", denied.AuthReqID, "careful")

	out, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, '\n')
	const golden = "testdata/records.golden.json"
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("the decisions' records differ from %s (go test -run TestDecisionRecords -update rewrites it):\n%s", golden, out)
	}
}
