package composition

import (
	"github.com/typeward/typeward/internal/registry"
	"testing"

	"github.com/typeward/typeward/internal/compat"
)

// Compositions real pipelines would use, over the real schemas.
func TestValidateRealTools(t *testing.T) {
	v := NewValidator(registry.NewCatalog(loadServers(t)), nil, compat.NewChecker())
	const (
		orgs  = "sentry-mcp/find_organizations"
		proj  = "sentry-mcp/find_projects"
		graph = "modelcontextprotocol/servers:memory/search_nodes"
		open  = "modelcontextprotocol/servers:memory/open_nodes"
		info  = "modelcontextprotocol/servers:filesystem/get_file_info"
		read  = "modelcontextprotocol/servers:filesystem/read_text_file"
		media = "modelcontextprotocol/servers:filesystem/read_media_file"
	)
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"memory: the names of found entities open them",
			`{"edges":[{"from":"` + graph + `","to":"` + open + `","map":{"entities[].name":"names"}}]}`, nil},
		{"memory: observations are an array per entity",
			`{"edges":[{"from":"` + graph + `","to":"` + open + `","map":{"entities[].observations":"names"}}]}`,
			[]string{"error type_mismatch " + graph + " " + open + " " + graph + "->" + open + " entities[].observations->names"}},
		{"sentry: per organization, its projects",
			`{"nodes":[{"id":"o","tool":"` + orgs + `"},{"id":"p","tool":"` + proj + `"}],
			  "edges":[{"from":"o","to":"p","each":true,"map":{"organizations[].slug":"organizationSlug","organizations[].regionUrl":"regionUrl"}}]}`, nil},
		{"sentry: every slug at once is not one slug",
			`{"nodes":[{"id":"o","tool":"` + orgs + `"},{"id":"p","tool":"` + proj + `"}],
			  "edges":[{"from":"o","to":"p","map":{"organizations[].slug":"organizationSlug"}}]}`,
			[]string{"error type_mismatch " + orgs + " " + proj + " o->p organizations[].slug->organizationSlug"}},
		{"sentry: a nullable URL is no slug",
			`{"nodes":[{"id":"o","tool":"` + orgs + `"},{"id":"p","tool":"` + proj + `"}],
			  "edges":[{"from":"o","to":"p","each":true,"map":{"organizations[].webUrl":"organizationSlug"}}]}`,
			[]string{"error may_be_null " + orgs + " " + proj + " o->p organizations[].webUrl->organizationSlug"}},
		{"filesystem: text is no line count",
			`{"nodes":[{"id":"i","tool":"` + info + `"},{"id":"r","tool":"` + read + `"}],
			  "edges":[{"from":"i","to":"r","map":{"content":"path","$":"head"}},{"from":"i","to":"r2","map":{"content":"tail"}}]}`,
			[]string{"error unknown_tool - - i->r2 -", "error type_mismatch " + info + " " + read + " i->r $->head"}},
		{"filesystem: media content is a union; only one shape has data",
			`{"nodes":[{"id":"m","tool":"read_media_file"},{"id":"o","tool":"` + open + `"}],
			  "edges":[{"from":"m","to":"o","map":{"content[].type":"names","content[].data":"names","content[].resource.uri":"names"}}]}`, []string{
				"warning may_be_missing " + media + " " + open + " m->o content[].data->names",
				"warning may_be_missing " + media + " " + open + " m->o content[].resource.uri->names",
			}},
		{"github: no outputSchema",
			`{"edges":[{"from":"github-mcp-server/get_me","to":"` + open + `","map":{"login":"names"}}]}`,
			[]string{"warning untyped_source github-mcp-server/get_me " + open + " github-mcp-server/get_me->" + open + " login->names"}},
		{"a bare name two servers declare",
			`{"nodes":[{"id":"s","tool":"search_issues"}]}`,
			[]string{"error ambiguous_tool - search_issues - -"}},
		{"a tool the registry refused names the reason",
			`{"nodes":[{"id":"u","tool":"create_uptime_monitor"}]}`,
			[]string{"error unknown_tool - create_uptime_monitor - -"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertIssues(t, validate(t, v, tt.doc).Issues, tt.want)
		})
	}
}
