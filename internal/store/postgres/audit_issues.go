package postgres

import (
	"encoding/json"
	"fmt"

	"github.com/typeward/typeward/internal/audit"
)

// storedIssue is an audit.Issue in the issues jsonb column. The witness is
// kept as its JSON text, a string: jsonb would reorder its keys and drop
// its spacing (the log must give back the value the client was shown,
// byte for byte), and holds no \u0000, which a witness string may contain.
type storedIssue struct {
	audit.Issue
	Witness *string `json:"witness,omitempty"` // shadows Issue.Witness
}

// encodeIssues is the issues column's value of a normalized record.
func encodeIssues(issues []audit.Issue) ([]byte, error) {
	out := make([]storedIssue, len(issues))
	for i, is := range issues {
		out[i].Issue = is
		if is.Witness != nil {
			w := string(is.Witness)
			out[i].Witness = &w
		}
		out[i].Issue.Witness = nil
	}
	return json.Marshal(out)
}

// decodeIssues reads the issues column; an empty array is no issues.
func decodeIssues(raw []byte) ([]audit.Issue, error) {
	var stored []storedIssue
	if err := json.Unmarshal(raw, &stored); err != nil {
		return nil, fmt.Errorf("audit issues column: %w", err)
	}
	if len(stored) == 0 {
		return nil, nil
	}
	out := make([]audit.Issue, len(stored))
	for i, s := range stored {
		out[i] = s.Issue
		if s.Witness != nil {
			out[i].Witness = json.RawMessage(*s.Witness)
		}
	}
	return out, nil
}
