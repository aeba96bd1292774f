package route

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/typeward/typeward/verify"
)

// grants are what a token's scope opens besides tools: every resource or
// those under URI prefixes (mcp:resources:PREFIX), every prompt or those
// named (mcp:prompts:NAME), completions.
type grants struct {
	resources, prompts, completions bool
	resourcePrefixes, promptNames   []string
}

func grantsOf(c *verify.Claims) grants {
	var g grants
	for _, s := range c.Scope {
		switch s {
		case verify.ScopeResources:
			g.resources = true
		case verify.ScopePrompts:
			g.prompts = true
		case verify.ScopeCompletions:
			g.completions = true
		}
		switch broad, part, ok := verify.NarrowedScope(s); {
		case ok && broad == verify.ScopeResources:
			g.resourcePrefixes = append(g.resourcePrefixes, part)
		case ok && broad == verify.ScopePrompts:
			g.promptNames = append(g.promptNames, part)
		}
	}
	return g
}

// resource reports a resource URI (or a URI template) the token opens.
func (g grants) resource(uri string) bool {
	if g.resources {
		return true
	}
	for _, p := range g.resourcePrefixes {
		if strings.HasPrefix(uri, p) {
			return true
		}
	}
	return false
}

// prompt reports a prompt the token opens.
func (g grants) prompt(name string) bool {
	if g.prompts {
		return true
	}
	for _, n := range g.promptNames {
		if n == name {
			return true
		}
	}
	return false
}

// narrowed reports a token whose listings the router filters.
func (g grants) narrowed(method string) bool {
	if strings.HasPrefix(method, "resources/") {
		return !g.resources
	}
	return !g.prompts
}

// scoped reports a method a scope opens.
func scoped(method string) bool {
	switch method {
	case "resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe",
		"prompts/list", "prompts/get", "completion/complete":
		return true
	}
	return false
}

// authorize says whether the token opens a scoped method with params,
// and else the scope it lacks and why; params are read strictly, by the
// exact names the upstream reads.
func (g grants) authorize(method string, params json.RawMessage) (scope, why string, err error) {
	str := func(obj map[string]json.RawMessage, name string) (string, error) {
		var s string
		if json.Unmarshal(obj[name], &s) != nil {
			return "", fmt.Errorf("%s: params.%s is not a string", method, name)
		}
		return s, nil
	}
	switch method {
	case "resources/list", "resources/templates/list":
		if g.resources || len(g.resourcePrefixes) > 0 {
			return "", "", nil
		}
		return verify.ScopeResources, "the token opens no resources", nil
	case "prompts/list":
		if g.prompts || len(g.promptNames) > 0 {
			return "", "", nil
		}
		return verify.ScopePrompts, "the token opens no prompts", nil
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		obj, err := strictObject(params, "uri")
		if err != nil {
			return "", "", err
		}
		uri, err := str(obj, "uri")
		if err != nil || g.resource(uri) {
			return "", "", err
		}
		return verify.ScopeResources + ":" + uri, fmt.Sprintf("the token does not open resource %q", uri), nil
	case "prompts/get":
		obj, err := strictObject(params, "name", "arguments")
		if err != nil {
			return "", "", err
		}
		name, err := str(obj, "name")
		if err != nil || g.prompt(name) {
			return "", "", err
		}
		return verify.ScopePrompts + ":" + name, fmt.Sprintf("the token does not open prompt %q", name), nil
	case "completion/complete":
		if !g.completions {
			return verify.ScopeCompletions, "the token does not open completions", nil
		}
		// Completing a prompt's or a resource template's argument reads
		// the prompt or the template: the token must open it too.
		obj, err := strictObject(params, "ref", "argument", "context")
		if err != nil {
			return "", "", err
		}
		ref, err := strictObject(obj["ref"], "type", "name", "uri")
		if err != nil {
			return "", "", err
		}
		kind, err := str(ref, "type")
		if err != nil {
			return "", "", err
		}
		switch kind {
		case "ref/prompt":
			name, err := str(ref, "name")
			if err != nil || g.prompt(name) {
				return "", "", err
			}
			return verify.ScopePrompts + ":" + name, fmt.Sprintf("the token does not open prompt %q", name), nil
		case "ref/resource":
			uri, err := str(ref, "uri")
			if err != nil || g.resource(uri) {
				return "", "", err
			}
			return verify.ScopeResources + ":" + uri, fmt.Sprintf("the token does not open resource %q", uri), nil
		}
		return "", "", fmt.Errorf("completion/complete: params.ref.type %.40q is neither ref/prompt nor ref/resource", kind)
	}
	return "", "", fmt.Errorf("%s is not a scoped method", method)
}

// listFilter is how a narrowed token's listing is cut down: the result's
// array member, and whether an entry (by its key member) is opened.
func (g grants) listFilter(method string) (array, key string, open func(string) bool) {
	switch method {
	case "resources/list":
		return "resources", "uri", g.resource
	case "resources/templates/list":
		return "resourceTemplates", "uriTemplate", g.resource
	case "prompts/list":
		return "prompts", "name", g.prompt
	}
	return "", "", nil
}
