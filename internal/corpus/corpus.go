// Package corpus is test data: 297 real MCP tool declarations from 16
// servers (names, schemas, annotations and where each came from), kept in
// the repository so that a clone is the whole project. Only tests import it.
package corpus

import _ "embed"

//go:embed real-tools.json
var realTools []byte

// RealTools is the tools document (the `servers` form ParseToolsFile reads),
// a fresh copy on each call so that no test can change another's.
func RealTools() []byte { return append([]byte(nil), realTools...) }
