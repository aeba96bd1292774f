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
