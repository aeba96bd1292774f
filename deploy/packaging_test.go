// Package deploy holds typeward's deployment files; its test checks them
// statically, since no Docker engine or cluster runs where the tests do.
package deploy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/metrics"
	"github.com/typeward/typeward/internal/server"
)

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// instruction is one Dockerfile instruction with its continuation lines.
type instruction struct{ op, args string }

func parseDockerfile(t *testing.T, data []byte) []instruction {
	var out []instruction
	var cur strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\") + " ")
			continue
		}
		cur.WriteString(line)
		op, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(op), strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

func TestDockerfile(t *testing.T) {
	ins := parseDockerfile(t, read(t, "../Dockerfile"))
	var froms, users, exposes, health, builds []string
	finalStage := -1
	for i, in := range ins {
		switch in.op {
		case "FROM":
			froms = append(froms, in.args)
			finalStage = i
		case "RUN":
			if strings.Contains(in.args, "go build") {
				builds = append(builds, in.args)
			}
		}
		if finalStage == i || finalStage < 0 {
			continue
		}
		switch in.op {
		case "USER":
			users = append(users, in.args)
		case "EXPOSE":
			exposes = append(exposes, in.args)
		case "HEALTHCHECK":
			health = append(health, in.args)
		}
	}
	if len(froms) < 2 {
		t.Errorf("not multi-stage: FROM %v", froms)
	}
	final := froms[len(froms)-1]
	if !strings.Contains(final, "distroless") && !strings.HasPrefix(final, "scratch") {
		t.Errorf("final image %q is neither distroless nor scratch", final)
	}
	if len(builds) != 1 || !strings.Contains(builds[0], "CGO_ENABLED=0") {
		t.Errorf("the binary is not built static: %v", builds)
	}
	if len(users) == 0 || slices.ContainsFunc(users, func(u string) bool { return u == "root" || u == "0" || strings.HasPrefix(u, "0:") }) {
		t.Errorf("final stage USER %v: want a non-root user", users)
	}
	if !slices.Contains(exposes, "8080") {
		t.Errorf("EXPOSE %v, want 8080", exposes)
	}
	if len(health) != 1 || !strings.Contains(health[0], "/healthz") || !strings.Contains(health[0], "healthcheck") {
		t.Errorf("HEALTHCHECK %v: want the binary's healthcheck on /healthz", health)
	}
}

type compose struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Build       any               `yaml:"build"`
		Command     []string          `yaml:"command"`
		EnvFile     any               `yaml:"env_file"`
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		Volumes     []string          `yaml:"volumes"`
		User        string            `yaml:"user"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
		Healthcheck struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

func TestCompose(t *testing.T) {
	var c compose
	if err := yaml.Unmarshal(read(t, "../docker-compose.yml"), &c); err != nil {
		t.Fatal(err)
	}
	pg, tw := c.Services["postgres"], c.Services["typeward"]
	if !strings.HasPrefix(pg.Image, "postgres:") || len(pg.Volumes) == 0 || len(pg.Healthcheck.Test) == 0 ||
		!strings.Contains(strings.Join(pg.Healthcheck.Test, " "), "pg_isready") {
		t.Errorf("postgres service: image %q volumes %v health %v", pg.Image, pg.Volumes, pg.Healthcheck.Test)
	}
	volume, _, _ := strings.Cut(pg.Volumes[0], ":")
	if _, ok := c.Volumes[volume]; !ok {
		t.Errorf("postgres data volume %q is not a named volume", volume)
	}
	if tw.DependsOn["postgres"].Condition != "service_healthy" {
		t.Errorf("typeward does not wait for a healthy postgres: %+v", tw.DependsOn)
	}
	if !slices.Contains(tw.Command, "serve") || !slices.Contains(tw.Command, "--migrate") {
		t.Errorf("typeward command %v: want serve --migrate", tw.Command)
	}
	if tw.EnvFile != ".env" {
		t.Errorf("env_file %v: want .env", tw.EnvFile)
	}
	if !strings.HasPrefix(tw.Environment["DATABASE_URL"], "postgres://") {
		t.Errorf("DATABASE_URL %q", tw.Environment["DATABASE_URL"])
	}
	if !slices.ContainsFunc(tw.Ports, func(p string) bool { return strings.HasSuffix(p, ":8080") }) {
		t.Errorf("ports %v: want 8080 published", tw.Ports)
	}
	if tw.User == "" || tw.User == "root" || strings.HasPrefix(tw.User, "0") {
		t.Errorf("typeward user %q: want non-root", tw.User)
	}
	if !strings.Contains(strings.Join(tw.Healthcheck.Test, " "), "/healthz") {
		t.Errorf("typeward health check %v", tw.Healthcheck.Test)
	}
}

// TestEnvExample: every secret the server demands in database mode is
// documented, and the real file is git-ignored.
func TestEnvExample(t *testing.T) {
	example := string(read(t, "../.env.example"))
	for _, name := range []string{server.EnvKEK, server.EnvPepper, clients.AdminClientIDEnv, clients.AdminClientSecretEnv, server.EnvIssuer, "POSTGRES_PASSWORD"} {
		if !regexp.MustCompile(`(?m)^` + name + `=`).MatchString(example) {
			t.Errorf(".env.example does not document %s", name)
		}
	}
	if !regexp.MustCompile(`(?m)^\.env$`).Match(read(t, "../.gitignore")) {
		t.Errorf(".gitignore does not ignore .env")
	}
}

func TestKubernetes(t *testing.T) {
	dec := yaml.NewDecoder(bytes.NewReader(read(t, "kubernetes/typeward.yaml")))
	kinds := map[string]map[string]any{}
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds[doc["kind"].(string)] = doc
	}
	for _, k := range []string{"Deployment", "Service", "ConfigMap", "PodDisruptionBudget", "ServiceAccount"} {
		if kinds[k] == nil {
			t.Errorf("no %s", k)
		}
	}
	raw, _ := json.Marshal(kinds["Deployment"])
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					SecurityContext struct {
						RunAsNonRoot bool `json:"runAsNonRoot"`
					} `json:"securityContext"`
					Containers []struct {
						Args  []string `json:"args"`
						Ports []struct {
							Name          string
							ContainerPort int
						} `json:"ports"`
						Lifecycle struct {
							PreStop struct {
								Sleep struct{ Seconds int } `json:"sleep"`
							} `json:"preStop"`
						} `json:"lifecycle"`
						ReadinessProbe struct {
							HTTPGet struct{ Path string } `json:"httpGet"`
						} `json:"readinessProbe"`
						LivenessProbe struct {
							HTTPGet struct{ Path string } `json:"httpGet"`
						} `json:"livenessProbe"`
						EnvFrom []struct {
							SecretRef *struct{ Name string } `json:"secretRef"`
						} `json:"envFrom"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template.Spec
	if !pod.SecurityContext.RunAsNonRoot || len(pod.Containers) != 1 {
		t.Fatalf("pod spec %+v", pod)
	}
	c := pod.Containers[0]
	if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" ||
		len(c.Ports) != 2 || c.Ports[0].ContainerPort != 8080 || c.Ports[1].ContainerPort != 9090 || !slices.Contains(c.Args, "serve") ||
		!slices.Contains(c.Args, "--metrics-addr=0.0.0.0:9090") {
		t.Errorf("container %+v", c)
	}
	if c.Lifecycle.PreStop.Sleep.Seconds < 1 {
		t.Errorf("no preStop delay: %+v", c.Lifecycle)
	}
	if !slices.ContainsFunc(c.EnvFrom, func(e struct {
		SecretRef *struct{ Name string } `json:"secretRef"`
	}) bool {
		return e.SecretRef != nil
	}) {
		t.Errorf("secrets are not taken from a Secret")
	}
}

// exportedMetrics is every metric family name a server exports.
func exportedMetrics(t *testing.T) []string {
	m := metrics.New(metrics.Options{})
	m.WatchRegistryCache(func() float64 { return 0 }, func() float64 { return 0 })
	m.WatchSigningKey(func() float64 { return 0 })
	m.WatchAuditBuffer(func() (int, uint64) { return 0, 0 })
	m.TokenRequests.WithLabelValues("issued", "ok")
	m.TokensIssued.WithLabelValues("other")
	m.ValidationIssues.WithLabelValues("error", "x")
	m.ValidationDuration.WithLabelValues("miss")
	m.ObserveHTTP("GET", "/", 200, 0)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var names []string
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			names = append(names, strings.Fields(rest)[0])
		}
	}
	return names
}

var metricName = regexp.MustCompile(`typeward_[a-z_]+`)

// TestMonitoringNamesExportedMetrics: the alert rules and the dashboard
// only query metrics typeward exports.
func TestMonitoringNamesExportedMetrics(t *testing.T) {
	exported := exportedMetrics(t)
	check := func(file string, text string) {
		used := metricName.FindAllString(text, -1)
		if len(used) == 0 {
			t.Errorf("%s queries no typeward metric", file)
		}
		for _, name := range used {
			base := name
			for _, suffix := range []string{"_bucket", "_count", "_sum"} {
				base = strings.TrimSuffix(base, suffix)
			}
			if !slices.Contains(exported, base) {
				t.Errorf("%s queries %s, which typeward does not export", file, name)
			}
		}
	}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert, Expr string
			}
		}
	}
	if err := yaml.Unmarshal(read(t, "prometheus/rules.yaml"), &rules); err != nil {
		t.Fatal(err)
	}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" {
				t.Errorf("rule %+v lacks a name or expression", r)
			}
			if strings.Contains(r.Expr, "typeward_") {
				check("prometheus/rules.yaml "+r.Alert, r.Expr)
			}
		}
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(read(t, "grafana/typeward-dashboard.json"), &dash); err != nil {
		t.Fatal(err)
	}
	for _, p := range dash.Panels {
		for _, target := range p.Targets {
			check("grafana panel "+p.Title, target.Expr)
		}
	}
}
