package route

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/typeward/typeward/verify"
)

// CompositionScopePrefix prefixes a stored composition's name in a scope
// a host asks typeward for.
const CompositionScopePrefix = "mcp:composition:"

// advertiseTTL is how long the scopes a host may ask for here are
// trusted: the metadata and every challenge read them, and none of those
// requests may make the router ask the upstream or the registry more
// often than this, whoever sends them.
const advertiseTTL = 30 * time.Second

// maxCompositionList bounds typeward's list of stored compositions.
const maxCompositionList = 4 << 20

// advertised is what this router tells hosts to ask for: mcp:tool:NAME
// for every tool its upstream lists, and mcp:composition:NAME for every
// valid stored composition whose tool versions the upstream serves (by
// digest).
type advertised struct {
	rt *Router

	mu     sync.Mutex
	tools  []string // the upstream's tool names, sorted
	comps  []string // the compositions' names, sorted
	asked  time.Time
	update chan struct{} // closed when the refresh in flight ends; nil when none is
}

// scopes returns the tools and compositions, refreshing them (one
// refresh at a time, at most every advertiseTTL, within ListTimeout) when
// they are older; a failed refresh keeps what was known.
func (a *advertised) scopes(ctx context.Context) (tools, comps []string) {
	a.mu.Lock()
	if a.asked.IsZero() || a.rt.cfg.Now().Sub(a.asked) >= advertiseTTL {
		if a.update == nil {
			a.update = make(chan struct{})
			a.asked = a.rt.cfg.Now()
			go a.refresh(context.WithoutCancel(ctx), a.update)
		}
		wait := a.update
		a.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
		}
		a.mu.Lock()
	}
	defer a.mu.Unlock()
	return a.tools, a.comps
}

func (a *advertised) refresh(ctx context.Context, done chan struct{}) {
	ctx, cancel := context.WithTimeout(ctx, a.rt.cfg.ListTimeout)
	defer cancel()
	digests, err := a.rt.listUpstream(ctx, "")
	var tools, comps []string
	if err == nil {
		for name := range digests {
			tools = append(tools, name)
		}
		slices.Sort(tools)
		comps, err = a.rt.servedCompositions(ctx, digests)
	}
	a.mu.Lock()
	if err != nil {
		a.rt.cfg.Log.Warn("route: the scopes hosts may ask for could not be refreshed", "err", err)
	} else {
		a.tools, a.comps = tools, comps
	}
	a.update = nil
	a.mu.Unlock()
	close(done)
}

// servedCompositions are the stored compositions every tool of which the
// upstream declares with the digest the composition was proven for.
func (rt *Router) servedCompositions(ctx context.Context, upstream map[string]string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rt.cfg.RegistryURL+"/registry/v1/compositions", nil)
	if err != nil {
		return nil, err
	}
	resp, err := rt.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the registry's compositions: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the registry's compositions: %s", resp.Status)
	}
	var list struct {
		Compositions []struct {
			Name  string       `json:"name"`
			Tools []listedTool `json:"tools"`
		} `json:"compositions"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxCompositionList)).Decode(&list); err != nil {
		return nil, fmt.Errorf("the registry's compositions: %w", err)
	}
	var out []string
	for _, c := range list.Compositions {
		if c.Name != "" && len(c.Tools) > 0 && !slices.ContainsFunc(c.Tools, func(t listedTool) bool { return !t.servedBy(upstream) }) {
			out = append(out, c.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// listedTool is a tool of a stored composition, as typeward lists it.
type listedTool struct {
	Name   string `json:"name"`
	Digest string `json:"digest"`
}

// servedBy reports whether the upstream declares the tool, under its name
// (a registry name "server/tool" is "tool" upstream), with its digest: a
// digest alone could be another tool's with the same schemas.
func (t listedTool) servedBy(upstream map[string]string) bool {
	name := t.Name[strings.LastIndex(t.Name, "/")+1:]
	return t.Digest != "" && upstream[name] == t.Digest
}

// scopesSupported is the metadata's scopes_supported: every composition,
// then every tool, as scopes.
func (rt *Router) scopesSupported(ctx context.Context) []string {
	tools, comps := rt.advertise.scopes(ctx)
	out := make([]string, 0, len(tools)+len(comps))
	for _, c := range comps {
		out = append(out, CompositionScopePrefix+c)
	}
	for _, t := range tools {
		out = append(out, verify.ToolScopePrefix+t)
	}
	if len(out) == 0 {
		return []string{verify.ToolScopePrefix + "*"} // nothing known yet
	}
	return out
}

// challengeScope is the scope a 401 or 403 asks for, the whole set the
// request needs at once: without a token, every tool the upstream serves
// (a composition of them without edges); with one refused for tool, the
// token's tools and that one, so that asking again loses nothing.
func (rt *Router) challengeScope(r *http.Request, claims *verify.Claims, tool string) string {
	var scopes []string
	if claims == nil {
		tools, _ := rt.advertise.scopes(r.Context())
		for _, t := range tools {
			scopes = append(scopes, verify.ToolScopePrefix+t)
		}
		return strings.Join(scopes, " ")
	}
	for _, s := range claims.Scope {
		if strings.HasPrefix(s, verify.ToolScopePrefix) {
			scopes = append(scopes, s)
		}
	}
	if tool != "" && !slices.Contains(scopes, verify.ToolScopePrefix+tool) {
		scopes = append(scopes, verify.ToolScopePrefix+tool)
	}
	return strings.Join(scopes, " ")
}
