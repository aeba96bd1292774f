package keys

import "time"

// Info describes a key without its key material: what `typeward keys list`
// prints and the admin API returns.
type Info struct {
	KID        string    `json:"kid"`
	Alg        Alg       `json:"alg"`
	State      State     `json:"state"`
	CreatedAt  time.Time `json:"created_at"`
	PublishAt  time.Time `json:"publish_at"`
	ActivateAt time.Time `json:"activate_at"`
	RetireAt   time.Time `json:"retire_at,omitzero"`
	ExpiresAt  time.Time `json:"expires_at,omitzero"`
}

// Describe is records as seen at now, in the order given.
func Describe(records []Record, now time.Time) []Info {
	out := make([]Info, len(records))
	for i := range records {
		r := &records[i]
		out[i] = Info{
			KID: r.KID, Alg: r.Alg, State: r.StateAt(now),
			CreatedAt: r.CreatedAt, PublishAt: r.PublishAt, ActivateAt: r.ActivateAt,
			RetireAt: r.RetireAt, ExpiresAt: r.ExpiresAt,
		}
	}
	return out
}

// Keys describes the loaded keys, earliest activation first.
func (k *Keyring) Keys() []Info {
	return Describe(k.snap.Load().records, k.now())
}
