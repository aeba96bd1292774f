package verify_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/typeward/typeward/verify"
)

// A tool router guards its MCP endpoint: only tokens typeward signed for
// this router, naming the tool a request calls, get through.
func ExampleVerifier_Middleware() {
	// Stands in for typeward's GET /.well-known/jwks.json.
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=900")
		fmt.Fprint(w, `{"keys":[]}`)
	}))
	defer as.Close()

	v, err := verify.New(verify.Config{
		Issuer:           "https://typeward.example.com",
		Audience:         "https://router.example.com/mcp",
		JWKSURL:          as.URL,
		ResourceMetadata: "https://router.example.com/.well-known/oauth-protected-resource",
	})
	if err != nil {
		log.Fatal(err)
	}
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		claims, _ := verify.ClaimsFromContext(r.Context())
		fmt.Fprintf(w, "calling for %s", claims.ClientID)
	})
	router := httptest.NewServer(v.Middleware(mcp))
	defer router.Close()

	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"db_query"}}`
	resp, err := http.Post(router.URL, "application/json", strings.NewReader(call))
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	fmt.Println(resp.Header.Get("WWW-Authenticate"))
	// Output:
	// 401
	// Bearer resource_metadata="https://router.example.com/.well-known/oauth-protected-resource"
}

// ToolName tells which tool a request calls, from the JSON-RPC body.
func ExampleToolName() {
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"transform_csv","arguments":{}}}`
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	name, err := verify.ToolName(r, verify.DefaultMaxBodyBytes)
	fmt.Println(name, err)

	claims := &verify.Claims{Tools: []string{"db_query", "transform_csv"}}
	fmt.Println(verify.ToolAllowed(claims, name), verify.ToolAllowed(claims, "email_send"))
	// Output:
	// transform_csv <nil>
	// true false
}
