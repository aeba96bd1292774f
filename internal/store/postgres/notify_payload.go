package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/registry"
)

// NotifyChannel carries registry changes between replicas. The channel is
// this name, ":" and the schema the tables live in, so that deployments
// sharing a database do not hear each other. A payload is
// "server/tool@version" (version 0: removed), never a schema.
const NotifyChannel = "typeward_registry"

// notifyChangeTx queues a change notification; Postgres delivers it at commit.
func notifyChangeTx(ctx context.Context, tx pgx.Tx, c registry.Change) error {
	_, err := tx.Exec(ctx, "SELECT pg_notify($1 || ':' || current_schema(), $2)", NotifyChannel, ChangePayload(c))
	return err
}

// ChangePayload encodes a change as a notification payload.
func ChangePayload(c registry.Change) string {
	return registry.QualifiedName(c.Server, c.Name) + "@" + strconv.Itoa(c.Version)
}

// ParseChangePayload decodes ChangePayload. Tool names hold neither "/"
// nor "@", so the last of each separates them.
func ParseChangePayload(payload string) (registry.Change, error) {
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
	return registry.Change{Server: server, Name: name, Version: version}, nil
}
