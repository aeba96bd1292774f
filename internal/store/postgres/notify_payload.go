package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/registry"
)

// NotifyChannel carries registry changes between replicas. The channel is
// this name, ":" and the schema the tables live in, so that deployments
// sharing a database do not hear each other. A payload is
// "server/tool@version#generation" (version 0: removed; the registry
// generation the change's transaction made, see migration 0015), never a
// schema. A payload without "#generation" (a replica from before) is read
// with Generation 0.
const NotifyChannel = "typeward_registry"

// channelSQL computes the channel of the current schema, with NotifyChannel
// as $1. A channel name longer than 63 bytes would be refused by pg_notify
// but silently truncated by LISTEN, so a long schema name is replaced by
// its md5. Both sides use this one expression, so they always agree.
const channelSQL = `(SELECT CASE WHEN octet_length(c) <= 63 THEN c ELSE $1::text || ':' || md5(current_schema()) END
	FROM (SELECT $1::text || ':' || current_schema() AS c) AS channel)`

// notifyChangesTx advances the registry generation and queues one
// notification per change naming it, in two round trips however many
// tools an approval changed; Postgres delivers them at commit. The
// generation's row stays locked until the commit, so generations follow
// commit order, as notifications do. It sets each change's Generation.
func notifyChangesTx(ctx context.Context, tx pgx.Tx, changes []registry.Change) error {
	if len(changes) == 0 {
		return nil
	}
	var gen int64
	if err := tx.QueryRow(ctx, `UPDATE registry_generation SET gen = gen + 1 RETURNING gen`).Scan(&gen); err != nil {
		return err
	}
	payloads := make([]string, len(changes))
	for i := range changes {
		changes[i].Generation = gen
		payloads[i] = ChangePayload(changes[i])
	}
	_, err := tx.Exec(ctx, "SELECT pg_notify("+channelSQL+", p) FROM unnest($2::text[]) WITH ORDINALITY AS u(p, n) ORDER BY n", NotifyChannel, payloads)
	return err
}

// ChangePayload encodes a change as a notification payload.
func ChangePayload(c registry.Change) string {
	return registry.QualifiedName(c.Server, c.Name) + "@" + strconv.Itoa(c.Version) + "#" + strconv.FormatInt(c.Generation, 10)
}

// ParseChangePayload decodes ChangePayload. Tool names hold neither "/"
// nor "@", so the last of each separates them.
func ParseChangePayload(payload string) (registry.Change, error) {
	var gen int64
	if hash := strings.LastIndexByte(payload, '#'); hash >= 0 {
		g, err := strconv.ParseInt(payload[hash+1:], 10, 64)
		if err != nil || g < 0 {
			return registry.Change{}, fmt.Errorf("registry notification %q: bad generation", payload)
		}
		payload, gen = payload[:hash], g
	}
	at := -1
	for i := len(payload) - 1; i >= 0; i-- {
		if payload[i] == '@' {
			at = i
			break
		}
	}
	if at < 0 {
		return registry.Change{}, fmt.Errorf("registry notification %q: no @version", payload)
	}
	version, err := strconv.Atoi(payload[at+1:])
	if err != nil || version < 0 {
		return registry.Change{}, fmt.Errorf("registry notification %q: bad version", payload)
	}
	server, name, _ := registry.SplitName(payload[:at])
	if !registry.ValidToolName(name) {
		return registry.Change{}, fmt.Errorf("registry notification %q: bad tool name", payload)
	}
	return registry.Change{Server: server, Name: name, Version: version, Generation: gen}, nil
}
