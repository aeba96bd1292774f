package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/store/postgres"
)

// clientsCommand is `typeward clients create|list|update|disable` against the
// database of DATABASE_URL (or --database-url): the operator's way to
// manage clients without going through the admin API.
type clientsCommand struct {
	m           *Main
	action      string
	databaseURL string
	output      string
	reg         clients.Registration
	jwksFile    string
	clientID    string         // disable, update
	approval    string         // create, update
	validation  string         // create, update
	patch       clients.Update // update

	db *postgres.DB
}

func newClientsCommand(m *Main) subcommand { return &clientsCommand{m: m} }

const clientsUsage = `usage:
  typeward clients create --name NAME [--auth-method client_secret_basic|client_secret_post|private_key_jwt|none]
                          [--jwks FILE] [--tool PATTERN]... [--audience URI]... [--allowed-scope SCOPE]...
                          [--redirect-uri URI]... [--grant-type GRANT]... [--scope 'SCOPE ...']...
                          [--approval never|mutating|destructive|always] [--validation lenient|strict]
                          [--dpop-bound] [--output text|json]
  typeward clients list [--output text|json]
  typeward clients update CLIENT_ID [--approval never|mutating|destructive|always] [--validation lenient|strict]
                          [--dpop-bound=true|false]
  typeward clients disable CLIENT_ID
Each takes --database-url (default: DATABASE_URL). create reads the secret pepper from ` + server.EnvPepper + `.`

// stringList is a flag that may be repeated; each use appends a value.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func (c *clientsCommand) ParseFlags(args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(c.m.Stderr, clientsUsage)
		if len(args) == 0 {
			return &exitError{code: exitBadInput}
		}
		return &exitError{code: exitOK}
	}
	c.action = args[0]
	fs := flag.NewFlagSet("typeward clients "+c.action, flag.ContinueOnError)
	fs.SetOutput(c.m.Stderr)
	fs.Usage = func() { fmt.Fprintln(c.m.Stderr, clientsUsage) }
	databaseURLFlag(fs, &c.databaseURL)
	switch c.action {
	case "create":
		var method string
		var tools, audiences, scopes, redirects, grants, scope stringList
		fs.StringVar(&c.reg.ClientName, "name", "", "client_name (required)")
		fs.StringVar(&method, "auth-method", string(clients.SecretBasic), "token_endpoint_auth_method")
		fs.StringVar(&c.jwksFile, "jwks", "", "`FILE` holding the public JWK Set (private_key_jwt)")
		fs.Var(&tools, "tool", "allowed tool `PATTERN`: name, server/*, or * (repeatable)")
		fs.Var(&audiences, "audience", "allowed resource `URI` (repeatable)")
		fs.Var(&scopes, "allowed-scope", "allowed plain `SCOPE`, e.g. "+clients.AdminScope+" (repeatable)")
		fs.Var(&scope, "scope", "RFC 7591 scope: what the authorization endpoint asks for when a request names neither scope nor authorization_details, e.g. 'mcp:composition:NAME offline_access' (repeatable; the values join)")
		fs.Var(&redirects, "redirect-uri", "redirect `URI` of the authorization code flow: https, or http on 127.0.0.1, [::1] or localhost (repeatable)")
		fs.Var(&grants, "grant-type", "`GRANT`: "+strings.Join(clients.GrantTypes(), ", ")+" (repeatable; default authorization_code with --redirect-uri, else client_credentials and CIBA)")
		fs.StringVar(&c.approval, "approval", string(clients.ApprovalNever), approvalFlagUsage)
		fs.StringVar(&c.validation, "validation", string(grading.Lenient), validationFlagUsage)
		fs.BoolVar(&c.reg.DPoPBoundAccessTokens, "dpop-bound", false, dpopFlagUsage)
		fs.StringVar(&c.output, "output", "text", "text or json")
		if err := c.parse(fs, args[1:], 0); err != nil {
			return err
		}
		c.reg.Approval, c.reg.Validation = clients.Approval(c.approval), grading.Mode(c.validation)
		c.reg.TokenEndpointAuthMethod = clients.AuthMethod(method)
		c.reg.AllowedTools, c.reg.AllowedAudiences, c.reg.AllowedScopes = tools, audiences, scopes
		c.reg.RedirectURIs, c.reg.GrantTypes, c.reg.Scope = redirects, grants, strings.Join(scope, " ")
	case "list":
		fs.StringVar(&c.output, "output", "text", "text or json")
		if err := c.parse(fs, args[1:], 0); err != nil {
			return err
		}
	case "update":
		fs.StringVar(&c.approval, "approval", "", approvalFlagUsage)
		fs.StringVar(&c.validation, "validation", "", validationFlagUsage)
		dpopBound := fs.Bool("dpop-bound", false, dpopFlagUsage)
		rest := args[1:]
		if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") { // the id may come before the flags
			c.clientID, rest = rest[0], rest[1:]
		}
		want := 0
		if c.clientID == "" {
			want = 1
		}
		if err := c.parse(fs, rest, want); err != nil {
			return err
		}
		if c.clientID == "" {
			c.clientID = fs.Arg(0)
		}
		fs.Visit(func(f *flag.Flag) { // the flags given, even as "", are the patch
			switch f.Name {
			case "approval":
				a := clients.Approval(c.approval)
				c.patch.Approval = &a
			case "validation":
				m := grading.Mode(c.validation)
				c.patch.Validation = &m
			case "dpop-bound":
				c.patch.DPoPBoundAccessTokens = dpopBound
			}
		})
		if c.patch.Approval == nil && c.patch.Validation == nil && c.patch.DPoPBoundAccessTokens == nil {
			return usageError("update needs --approval, --validation or --dpop-bound")
		}
	case "disable":
		if err := c.parse(fs, args[1:], 1); err != nil {
			return err
		}
		c.clientID = fs.Arg(0)
	default:
		return usageError("unknown action %q: want create, list, update or disable", c.action)
	}
	if c.output != "" {
		if err := checkOutput(c.output); err != nil {
			return err
		}
	}
	return resolveDatabaseURL(c.m, &c.databaseURL, "clients of the embedded default live in its memory; use its admin API")
}

// parse parses flags and demands exactly positional arguments.
func (c *clientsCommand) parse(fs *flag.FlagSet, args []string, positional int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &exitError{code: exitOK}
		}
		return &exitError{code: exitBadInput, msg: err.Error()}
	}
	if fs.NArg() != positional {
		return usageError("%s takes %d argument(s), got %d: %s", c.action, positional, fs.NArg(), strings.Join(fs.Args(), " "))
	}
	return nil
}

func (c *clientsCommand) Run(ctx context.Context) error {
	db, err := postgres.Open(ctx, c.databaseURL)
	if err != nil {
		return err
	}
	c.db = db
	store := postgres.NewClients(db)
	switch c.action {
	case "create":
		return c.create(ctx, store)
	case "list":
		return c.list(ctx, store)
	case "update":
		return c.update(ctx, store)
	default:
		if err := store.Disable(ctx, c.clientID); err != nil {
			return err
		}
		fmt.Fprintf(c.m.Stdout, "client %s disabled\n", c.clientID)
		return nil
	}
}

func (c *clientsCommand) create(ctx context.Context, store clients.Store) error {
	pepper, err := server.PepperFromEnv(c.m.Getenv)
	if err != nil {
		return usageError("%v", err)
	}
	hasher, err := clients.NewHasher(pepper)
	if err != nil {
		return usageError("%v", err)
	}
	if c.jwksFile != "" {
		if c.reg.JWKS, err = readSmallFile(c.jwksFile, 64<<10); err != nil {
			return err
		}
	}
	c.reg.Issuer = c.m.Getenv(server.EnvIssuer)
	client, secret, err := clients.Register(ctx, store, hasher, c.reg, time.Now())
	var ve *clients.ValidationError
	if errors.As(err, &ve) {
		var b strings.Builder
		b.WriteString("invalid client:")
		for _, p := range ve.Problems {
			fmt.Fprintf(&b, "\n  %s %s", p.Field, p.Message)
		}
		fmt.Fprintln(c.m.Stderr, b.String())
		return &exitError{code: exitBadInput}
	}
	if err != nil {
		return err
	}
	if c.output == "json" {
		return writeIndentedJSON(c.m.Stdout, map[string]string{"client_id": client.ID, "client_secret": secret})
	}
	fmt.Fprintf(c.m.Stdout, "client_id:     %s\n", client.ID)
	if secret != "" {
		fmt.Fprintf(c.m.Stdout, "client_secret: %s\n", secret)
		fmt.Fprintln(c.m.Stderr, "The secret is shown this once: typeward keeps only its keyed hash.")
	}
	return nil
}

const (
	approvalFlagUsage   = "approval `POLICY`: never, mutating, destructive or always (which compositions wait for a person)"
	validationFlagUsage = "validation `MODE`: lenient or strict (strict refuses every proven incompatibility)"
	dpopFlagUsage       = "dpop_bound_access_tokens: every token request must carry a DPoP proof (RFC 9449), so no token is a bearer token"
)

func (c *clientsCommand) update(ctx context.Context, store clients.Store) error {
	cl, err := clients.Apply(ctx, store, c.clientID, c.patch)
	var ve *clients.ValidationError
	if errors.As(err, &ve) {
		ps := make([]string, len(ve.Problems))
		for i, p := range ve.Problems {
			ps[i] = p.Field + " " + p.Message
		}
		return usageError("%s", strings.Join(ps, "; "))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.m.Stdout, "client %s: approval %s, validation %s, dpop_bound_access_tokens %t\n", cl.ID, cl.Approval, cl.Validation, cl.DPoPBound)
	return nil
}

func (c *clientsCommand) list(ctx context.Context, store clients.Store) error {
	all, err := store.List(ctx)
	if err != nil {
		return err
	}
	if c.output == "json" {
		lines := make([]clients.View, len(all))
		for i, cl := range all {
			lines[i] = clients.ViewOf(cl)
		}
		return writeIndentedJSON(c.m.Stdout, lines)
	}
	tw := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT_ID\tNAME\tAUTH_METHOD\tSTATE\tAPPROVAL\tVALIDATION\tCREATED\tTOOLS\tAUDIENCES\tSCOPES\tGRANTS\tREDIRECT_URIS\tSCOPE")
	for _, cl := range all {
		state := "active"
		if cl.Disabled {
			state = "disabled"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cl.ID, cl.Name, cl.TokenEndpointAuthMethod, state, cl.Approval, cl.Validation,
			cl.CreatedAt.UTC().Format(time.RFC3339), dashIfEmpty(cl.AllowedTools), dashIfEmpty(cl.AllowedAudiences), dashIfEmpty(cl.AllowedScopes),
			strings.Join(cl.Grants(), ","), dashIfEmpty(cl.RedirectURIs), dashIfEmpty(cl.Scope))
	}
	return tw.Flush()
}

func (c *clientsCommand) Close() error {
	if c.db != nil {
		c.db.Close()
	}
	return nil
}

func readSmallFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError("%v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, usageError("%s: %v", path, err)
	}
	if int64(len(data)) > limit {
		return nil, usageError("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}

func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func dashIfEmpty(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}
