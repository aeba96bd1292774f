package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/verdict"
)

// writeTextReport prints what a person reads in a CI log: issues grouped by
// edge in walk order under a header naming the edge and its tools, one line
// each with the field path first, under it the witness of an
// incompatibility (clipped) and the target validator's complaint, then a
// verdict line.
//
//	q->csv (db_query -> transform_csv)
//	  rows->data  error  type_mismatch  rows[] is object but data[] expects string
//	              rows = [{}] : data at '/0': got object, want string
//	invalid: 1 error, 1 warning
func writeTextReport(w io.Writer, r *composition.Result) error {
	var b strings.Builder
	var groups []string
	byGroup := map[string][]verdict.Issue{}
	for _, is := range r.Issues {
		g := groupOf(is)
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], is)
	}
	errs, warns := 0, 0
	for _, g := range groups {
		b.WriteString(g + "\n")
		issues := byGroup[g]
		width := 0
		for _, is := range issues {
			width = max(width, len(fieldOf(is)))
		}
		for _, is := range issues {
			if is.Severity == verdict.SeverityError {
				errs++
			} else {
				warns++
			}
			fmt.Fprintf(&b, "  %-*s  %-7s  %s  %s\n", width, fieldOf(is), is.Severity, is.Code, oneLine(is.Message))
			if is.WitnessError != nil {
				src, tgt, _ := strings.Cut(is.FieldPath, "->")
				fmt.Fprintf(&b, "  %-*s  %s = %s : %s %s\n", width, "", orDash(src), oneLine(verdict.Clip(is.Witness, maxTextWitness)),
					orDash(tgt), oneLine(is.WitnessError.Message))
			}
		}
	}
	verdict := "valid"
	if !r.Valid() {
		verdict = "invalid"
	}
	fmt.Fprintf(&b, "%s: %s, %s\n", verdict, plural(errs, "error"), plural(warns, "warning"))
	_, err := io.WriteString(w, b.String())
	return err
}

func groupOf(is verdict.Issue) string {
	switch {
	case is.Edge != "":
		return fmt.Sprintf("%s (%s -> %s)", is.Edge, is.SourceTool, is.TargetTool)
	case is.TargetTool != "":
		return is.TargetTool
	}
	return "composition"
}

// maxTextWitness bounds a witness on a report line; longer ones end in "…".
const maxTextWitness = 120

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fieldOf(is verdict.Issue) string {
	if is.FieldPath == "" {
		return "-"
	}
	return is.FieldPath
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
