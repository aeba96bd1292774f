package audit

import "errors"

// ReasonNotDelivered is the reason of a record whose token was signed but
// never handed out: the request's context ended (deadline, or the client
// hung up) before the record was durable, or the record could not be
// written then. The log never claims a token
// nobody received, so such an issuance is stored as an Error with this
// reason, its jti kept so the withheld token can be told apart.
const ReasonNotDelivered = "not_delivered"

// Undelivered is r as stored when its request ended before r was durable:
// an issuance becomes an error with ReasonNotDelivered; a refusal is
// unchanged (nothing was handed out either way).
func Undelivered(r Issuance) Issuance {
	if r.Outcome == Issued {
		r.Outcome, r.Reason = Error, ReasonNotDelivered
	}
	return r
}

// ReasonRegistryChanged is the reason of a record whose token was signed
// but withheld because the registry changed after its composition was
// validated (registry.ErrChanged): an Error, its jti kept.
const ReasonRegistryChanged = "registry_changed"

// RegistryChanged is r as recorded when the registry's guard withheld its
// token (registry.ErrChanged).
func RegistryChanged(r Issuance) Issuance {
	if r.Outcome == Issued {
		r.Outcome, r.Reason = Error, ReasonRegistryChanged
	}
	r.RegistryGeneration = 0
	return r
}

// ErrBuffered is wrapped by Append for a refusal (a denied or error
// record) the store could not write because the database is unavailable:
// the record is held in a bounded buffer in memory and written when the
// database answers again, so an outage still leaves its trace. An issued
// record is never buffered as issued: Append fails, its token must be
// withheld, and the store buffers it as Undelivered.
var ErrBuffered = errors.New("audit: database unavailable; record held in memory until it recovers")
