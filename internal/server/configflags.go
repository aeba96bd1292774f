package server

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// binder declares typed flags that fall back to environment variables. A
// value that does not parse is recorded as a problem instead of stopping
// the parse, so one start reports every bad flag and variable at once.
type binder struct {
	fs       *flag.FlagSet
	fields   []*field // in declaration order, for the environment and --help
	problems []error
	source   string // the variable being applied; "" while parsing flags
	// envOnly lists the settings only the environment holds, for --help.
	envOnly [][2]string
}

// field is one setting: a flag.Value that parses into its Config field.
type field struct {
	b              *binder
	name, env, def string
	kind           string // placeholder in --help: duration, number, …
	parse          func(string) error
	isBool         bool
}

func newBinder(name string) *binder {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Errors are returned, not printed: main prints them once.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &binder{fs: fs}
}

func (f *field) String() string   { return f.def }
func (f *field) IsBoolFlag() bool { return f.isBool }

func (f *field) Set(s string) error {
	if err := f.parse(s); err != nil {
		where := "--" + f.name
		if f.b.source != "" {
			where = f.b.source
		}
		f.b.problems = append(f.b.problems, fmt.Errorf("%s %q: %v", where, s, err))
	}
	return nil
}

func (b *binder) add(name, env, def, kind, usage string, isBool bool, parse func(string) error) {
	f := &field{b: b, name: name, env: env, def: def, kind: kind, parse: parse, isBool: isBool}
	b.fields = append(b.fields, f)
	b.fs.Var(f, name, usage)
	_ = parse(def) // defaults are constants that parse
}

func (b *binder) str(p *string, name, env, def, usage string) {
	b.add(name, env, def, "string", usage, false, func(s string) error { *p = s; return nil })
}

func (b *binder) boolean(p *bool, name, env string, def bool, usage string) {
	b.add(name, env, strconv.FormatBool(def), "", usage, true, func(s string) error {
		v, err := strconv.ParseBool(s)
		if err != nil {
			return errors.New("want true or false")
		}
		*p = v
		return nil
	})
}

func (b *binder) duration(p *time.Duration, name, env string, def time.Duration, usage string) {
	b.add(name, env, def.String(), "duration", usage, false, func(s string) error {
		v, err := time.ParseDuration(s)
		if err != nil {
			return errors.New("not a duration (e.g. 90s, 5m, 720h)")
		}
		*p = v
		return nil
	})
}

func (b *binder) float(p *float64, name, env string, def float64, usage string) {
	b.add(name, env, strconv.FormatFloat(def, 'g', -1, 64), "number", usage, false, func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return errors.New("not a number")
		}
		*p = v
		return nil
	})
}

func (b *binder) integer(p *int, name, env string, def int, usage string) {
	b.add(name, env, strconv.Itoa(def), "n", usage, false, func(s string) error {
		v, err := strconv.Atoi(s)
		if err != nil {
			return errors.New("not an integer")
		}
		*p = v
		return nil
	})
}

// list is a comma-separated list; blanks are dropped.
func (b *binder) list(p *[]string, name, env, usage string) {
	b.add(name, env, "", "list", usage, false, func(s string) error {
		*p = nil
		for _, v := range strings.Split(s, ",") {
			if v = strings.TrimSpace(v); v != "" {
				*p = append(*p, v)
			}
		}
		return nil
	})
}

// value is a setting with its own parser, such as an enumeration.
func (b *binder) value(name, env, def, usage string, parse func(string) error) {
	b.add(name, env, def, "string", usage, false, parse)
}

// parse reads args, then the environment for every flag not given. Help
// (-h) is written to usage and returned as flag.ErrHelp; an unknown flag
// or a stray argument is an error of its own, before any value problem.
func (b *binder) parse(args []string, getenv func(string) string, usage io.Writer) error {
	if err := b.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			b.help(usage)
			return err
		}
		return fmt.Errorf("%v (see %s --help)", err, b.fs.Name())
	}
	if b.fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s (see %s --help)", strings.Join(b.fs.Args(), " "), b.fs.Name())
	}
	given := map[string]bool{}
	b.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, f := range b.fields {
		if f.env == "" { // a flag without a variable
			continue
		}
		if v := getenv(f.env); v != "" && !given[f.name] {
			b.source = f.env
			_ = f.Set(v)
		}
	}
	b.source = ""
	return nil
}

// help lists every flag with its variable and default, then the settings
// only the environment holds. Defaults are the built-in ones: a variable's
// value is never printed (DATABASE_URL may hold a password).
func (b *binder) help(w io.Writer) {
	fmt.Fprintf(w, "usage: %s [flags]\n\nA flag on the command line wins over its environment variable.\n\nflags:\n", b.fs.Name())
	for _, f := range b.fields {
		name, usage := flag.UnquoteUsage(b.fs.Lookup(f.name))
		if name == "value" {
			name = f.kind
		}
		line := "  --" + f.name
		if !f.isBool {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, usage)
		var where []string
		if f.env != "" {
			where = append(where, "env "+f.env)
		}
		if f.def != "" {
			where = append(where, "default "+f.def)
		}
		if len(where) > 0 {
			fmt.Fprintf(w, "      %s\n", strings.Join(where, ", "))
		}
	}
	if len(b.envOnly) > 0 {
		fmt.Fprintln(w, "\nenvironment only (secrets):")
	}
	for _, e := range b.envOnly {
		fmt.Fprintf(w, "  %s\n      %s\n", e[0], e[1])
	}
}
