package schemaview

// Items is how one schema object describes array items in its dialect: in
// 2020-12 prefixItems and items; in draft-07 an items array and
// additionalItems, or an items schema for every item.
type Items struct {
	Prefix  []Sub // the tuple: one schema per leading position
	Rest    Sub   // every item past the tuple
	HasRest bool
}

// Items reads s's tuple and rest schemas.
func (v View) Items(s Sub) Items {
	var it Items
	if v.d7 {
		if _, isTuple := s.M["items"].([]any); isTuple {
			it.Prefix = s.Schemas("items")
			it.Rest, it.HasRest = s.Child("additionalItems")
			return it
		}
		it.Rest, it.HasRest = s.Child("items")
		return it
	}
	it.Prefix = s.Schemas("prefixItems")
	it.Rest, it.HasRest = s.Child("items")
	return it
}

// TupleKeyword is the keyword holding s's tuple, "" when it has none.
func (v View) TupleKeyword(s Sub) string {
	if _, isTuple := s.M["items"].([]any); isTuple && v.d7 {
		return "items"
	}
	if _, ok := s.M["prefixItems"]; ok && !v.d7 {
		return "prefixItems"
	}
	return ""
}

// ItemRest is the schema s applies to every item from index From on: its
// items (draft-07: additionalItems past an items array), or else an
// unevaluatedItems, which applies past every position that s and what it
// applies in place evaluate.
type ItemRest struct {
	Sub  Sub
	From int
	Has  bool
	// Unsure: an unevaluatedItems whose reach depends on the instance
	// (contains, a union of branches with tuples, if/then/else, a dynamic
	// reference); Sub is it. A source drops it, which only widens; a
	// target cannot be decided by position.
	Unsure bool
}

// ItemRest reads what s says about the items past its positions.
func (v View) ItemRest(s Sub) ItemRest {
	it := v.Items(s)
	if it.HasRest {
		return ItemRest{Sub: it.Rest, From: len(it.Prefix), Has: true}
	}
	u, ok := s.Child("unevaluatedItems")
	if !ok || v.d7 {
		return ItemRest{From: len(it.Prefix)} // draft-07 has no unevaluatedItems
	}
	ev := v.ItemEvaluation(s)
	switch {
	case ev.All:
		return ItemRest{From: len(it.Prefix)} // a subschema evaluates every item
	case !ev.Exact:
		return ItemRest{Sub: u, From: len(it.Prefix), Unsure: true}
	}
	return ItemRest{Sub: u, From: ev.EvaluatedPrefix(), Has: true}
}
