package route

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/typeward/typeward/internal/schema"
)

// maxFailures bounds the failures one error lists.
const maxFailures = 100

var printer = message.NewPrinter(language.English)

// Failure is one way an instance breaks a schema, as the data of a
// JSON-RPC error lists it.
type Failure struct {
	InstancePath string `json:"instancePath"` // JSON pointer into the instance
	Keyword      string `json:"keyword"`
	Message      string `json:"message"` // "arguments.sql: expected string, got number"
}

// check validates instance against s and returns every failure, each
// message naming the field under root ("arguments", "structuredContent").
func check(s *schema.Schema, instance any, root string) []Failure {
	err := s.Validate(instance)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Failure{{Keyword: "", Message: root + ": " + err.Error()}}
	}
	var out []Failure
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(out) >= maxFailures {
			return
		}
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		out = append(out, failure(e, root))
	}
	walk(ve)
	slices.SortStableFunc(out, func(a, b Failure) int { return strings.Compare(a.InstancePath, b.InstancePath) })
	return out
}

func failure(e *jsonschema.ValidationError, root string) Failure {
	loc := slices.Clone(e.InstanceLocation)
	keyword := strings.Join(e.ErrorKind.KeywordPath(), "/")
	var text string
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		text = fmt.Sprintf("expected %s, got %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Required:
		// The field missing is the one to name, not the object holding it.
		if len(k.Missing) > 0 {
			loc = append(loc, k.Missing[0])
		}
		text = "required, missing"
		if len(k.Missing) > 1 {
			text += fmt.Sprintf(" (also %s)", strings.Join(k.Missing[1:], ", "))
		}
	case *kind.AdditionalProperties:
		if len(k.Properties) > 0 {
			loc = append(loc, k.Properties[0])
		}
		text = "not allowed (additionalProperties)"
	default:
		text = k.LocalizedString(printer) // names its keyword: "minimum: got 0, want 1"
	}
	return Failure{InstancePath: pointer(loc), Keyword: keyword, Message: fieldPath(root, loc) + ": " + text}
}

// fieldPath writes a location as root.a.b[2].
func fieldPath(root string, loc []string) string {
	var b strings.Builder
	b.WriteString(root)
	for _, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
		} else {
			b.WriteString("." + tok)
		}
	}
	return b.String()
}

func pointer(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		b.WriteString("/" + schema.EscapeToken(tok))
	}
	return b.String()
}

// summary is an error message for a list of failures: the first, and how
// many more.
func summary(prefix string, fs []Failure) string {
	msg := prefix + fs[0].Message
	if len(fs) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(fs)-1)
	}
	return msg
}
