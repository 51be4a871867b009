CREATE TABLE "audit_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"owner" text NOT NULL,
	"vault" text,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"target" text NOT NULL,
	"request_id" text,
	"client" text,
	"outcome" text NOT NULL,
	"dedupe_key" text
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "scopes" text[] DEFAULT '{read,webhooks,vaults:write,exports,audit}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "vaults" text[];--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "audit_entries_owner_idx" ON "audit_entries" USING btree ("owner","at","id");--> statement-breakpoint
CREATE INDEX "audit_entries_vault_idx" ON "audit_entries" USING btree ("vault","at","id");--> statement-breakpoint
CREATE INDEX "audit_entries_at_idx" ON "audit_entries" USING btree ("at");--> statement-breakpoint
CREATE UNIQUE INDEX "audit_entries_dedupe_key_idx" ON "audit_entries" USING btree ("dedupe_key");