package composition

import (
	"github.com/typeward/typeward/internal/schemaview"
)

// property is where a conjunction describes one property.
type property struct {
	ptrs      []string // every subschema the property's value satisfies
	declared  bool     // named in properties, matched by patternProperties, or typed by additionalProperties
	forbidden string   // pointer of an additionalProperties: false that excludes it
	required  bool
	// unsure points at an additionalProperties or unevaluatedProperties
	// that may or may not apply (a pattern that cannot be evaluated, or
	// subschemas that depend on the instance may cover the name): a source
	// ignores it, which only widens; a target cannot be resolved.
	unsure string
}

func (v schemaView) property(x expansion, name string) property {
	var p property
	members := make([]schemaview.Member, len(x.atoms))
	subs := make([]schemaview.Sub, len(x.atoms))
	for i, atom := range x.atoms {
		subs[i] = v.sub(atom)
		members[i] = v.sv.Member(subs[i], name)
		if members[i].HasNamed {
			p.ptrs = append(p.ptrs, members[i].Named.Ptr)
		}
	}
	p.required = v.sv.Guaranteed(subs)[name]
	for i, atom := range x.atoms {
		m := members[i]
		for _, c := range m.Patterns {
			p.ptrs = append(p.ptrs, c.Ptr) // after every properties entry
		}
		if m.Matched() {
			p.declared = true
			continue
		}
		if m.Unknown {
			p.noteUnsure(atom + "/additionalProperties")
			continue
		}
		if c, ok := v.sub(atom).Child("additionalProperties"); ok {
			p.applyCatchAll(c)
		}
	}
	for _, atom := range x.atoms {
		s := v.sub(atom)
		switch v.sv.UnevaluatedProperty(s, name) {
		case schemaview.Applied:
			c, _ := s.Child("unevaluatedProperties")
			p.applyCatchAll(c)
		case schemaview.MayApply:
			p.noteUnsure(atom + "/unevaluatedProperties")
		}
	}
	return p
}

func (p *property) noteUnsure(ptr string) {
	if p.unsure == "" {
		p.unsure = ptr
	}
}

// applyCatchAll applies an additionalProperties or unevaluatedProperties
// that covers the property: false forbids it (the first such pointer is
// the one reported), a schema describes it.
func (p *property) applyCatchAll(c schemaview.Sub) {
	switch {
	case c.IsFalse():
		if p.forbidden == "" {
			p.forbidden = c.Ptr
		}
	case c.M != nil:
		p.ptrs = append(p.ptrs, c.Ptr)
		p.declared = true
	}
}
