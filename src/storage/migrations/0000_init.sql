CREATE TABLE "chain_cursors" (
	"name" text PRIMARY KEY NOT NULL,
	"signature" text,
	"slot" bigint,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chain_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"signature" text NOT NULL,
	"event_index" integer NOT NULL,
	"slot" bigint NOT NULL,
	"block_time" timestamp (3) with time zone,
	"name" text NOT NULL,
	"instruction" text,
	"vault_address" text,
	"data" jsonb NOT NULL,
	"transaction_failed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chain_heartbeats" (
	"name" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"instance" text NOT NULL,
	"behind_since" timestamp (3) with time zone,
	"beat_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chain_signatures" (
	"signature" text PRIMARY KEY NOT NULL,
	"slot" bigint NOT NULL,
	"block_time" timestamp (3) with time zone,
	"failed" boolean DEFAULT false NOT NULL,
	"event_count" integer DEFAULT 0 NOT NULL,
	"truncated" boolean DEFAULT false NOT NULL,
	"processed_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "daily_destination_metrics" (
	"vault_key" text NOT NULL,
	"day" date NOT NULL,
	"destination" text NOT NULL,
	"executed_count" integer NOT NULL,
	"executed_volume" numeric(30, 0) NOT NULL,
	CONSTRAINT "daily_destination_metrics_vault_key_day_destination_pk" PRIMARY KEY("vault_key","day","destination")
);
--> statement-breakpoint
CREATE TABLE "daily_metrics" (
	"vault_key" text NOT NULL,
	"day" date NOT NULL,
	"executed_count" integer DEFAULT 0 NOT NULL,
	"executed_volume" numeric(30, 0) DEFAULT 0 NOT NULL,
	"blocked_count" integer DEFAULT 0 NOT NULL,
	"blocked_volume" numeric(30, 0) DEFAULT 0 NOT NULL,
	"fees" numeric(30, 0) DEFAULT 0 NOT NULL,
	"overrides_requested" integer DEFAULT 0 NOT NULL,
	"overrides_approved" integer DEFAULT 0 NOT NULL,
	"overrides_rejected" integer DEFAULT 0 NOT NULL,
	"overrides_executed" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "daily_metrics_vault_key_day_pk" PRIMARY KEY("vault_key","day")
);
--> statement-breakpoint
CREATE TABLE "daily_metrics_dirty" (
	"vault_key" text NOT NULL,
	"day" date NOT NULL,
	"marked_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "daily_metrics_dirty_vault_key_day_pk" PRIMARY KEY("vault_key","day")
);
--> statement-breakpoint
CREATE TABLE "destination_block_metrics" (
	"vault_key" text NOT NULL,
	"level" smallint NOT NULL,
	"start_day" date NOT NULL,
	"destination" text NOT NULL,
	"executed_count" integer NOT NULL,
	"executed_volume" numeric(30, 0) NOT NULL,
	CONSTRAINT "destination_block_metrics_vault_key_level_start_day_destination_pk" PRIMARY KEY("vault_key","level","start_day","destination")
);
--> statement-breakpoint
CREATE TABLE "action_nonces" (
	"nonce" text PRIMARY KEY NOT NULL,
	"override_id" uuid NOT NULL,
	"account" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "blinks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"override_id" uuid NOT NULL,
	"url" text NOT NULL,
	"view_count" integer DEFAULT 0 NOT NULL,
	"approve_count" integer DEFAULT 0 NOT NULL,
	"reject_count" integer DEFAULT 0 NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "blinks_override_id_unique" UNIQUE("override_id")
);
--> statement-breakpoint
CREATE TABLE "overrides" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"vault_id" uuid NOT NULL,
	"nonce" numeric(20, 0) NOT NULL,
	"destination" text NOT NULL,
	"amount" numeric(20, 0) NOT NULL,
	"reason" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"approved_at" timestamp (3) with time zone,
	"rejected_at" timestamp (3) with time zone,
	"executed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "overrides_status_check" CHECK ("overrides"."status" in ('pending', 'approved', 'rejected', 'executed'))
);
--> statement-breakpoint
CREATE TABLE "transactions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"vault_id" uuid NOT NULL,
	"signature" text,
	"event_index" integer,
	"destination" text NOT NULL,
	"amount" numeric(20, 0) NOT NULL,
	"fee_collected" numeric(20, 0),
	"status" text NOT NULL,
	"block_reason" text,
	"override_id" uuid,
	"slot" bigint,
	"timestamp" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "transactions_status_check" CHECK ("transactions"."status" in ('executed', 'blocked', 'pending'))
);
--> statement-breakpoint
CREATE TABLE "vaults" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"address" text NOT NULL,
	"authority" text NOT NULL,
	"agent_signer" text DEFAULT '' NOT NULL,
	"deposit_address" text NOT NULL,
	"daily_limit" numeric(20, 0) NOT NULL,
	"spent_today" numeric(20, 0) DEFAULT 0 NOT NULL,
	"last_reset" timestamp (3) with time zone,
	"name" text DEFAULT '' NOT NULL,
	"name_overridden" boolean DEFAULT false NOT NULL,
	"tier" smallint DEFAULT 0 NOT NULL,
	"fee_basis_points" integer DEFAULT 0 NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"whitelist" text[] DEFAULT '{}'::text[] NOT NULL,
	"whitelist_count" integer DEFAULT 0 NOT NULL,
	"vault_nonce" numeric(20, 0),
	"override_nonce" numeric(20, 0),
	"created_slot" bigint,
	"synced_slot" bigint DEFAULT 0 NOT NULL,
	"transaction_count" bigint DEFAULT 0 NOT NULL,
	"executed_count" bigint DEFAULT 0 NOT NULL,
	"blocked_count" bigint DEFAULT 0 NOT NULL,
	"total_volume" numeric(30, 0) DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "vaults_address_unique" UNIQUE("address")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"status_code" integer,
	"error" text,
	"response_body" text
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"webhook_id" uuid NOT NULL,
	"event" text NOT NULL,
	"payload" text NOT NULL,
	"dedupe_key" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"last_error" text,
	"last_status_code" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner" text NOT NULL,
	"vault_id" uuid,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"secret" text NOT NULL,
	"previous_secret" text,
	"previous_secret_expires_at" timestamp (3) with time zone,
	"active" boolean DEFAULT true NOT NULL,
	"disabled_reason" text,
	"failing_since" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "action_nonces" ADD CONSTRAINT "action_nonces_override_id_overrides_id_fk" FOREIGN KEY ("override_id") REFERENCES "public"."overrides"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "blinks" ADD CONSTRAINT "blinks_override_id_overrides_id_fk" FOREIGN KEY ("override_id") REFERENCES "public"."overrides"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "overrides" ADD CONSTRAINT "overrides_vault_id_vaults_id_fk" FOREIGN KEY ("vault_id") REFERENCES "public"."vaults"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_vault_id_vaults_id_fk" FOREIGN KEY ("vault_id") REFERENCES "public"."vaults"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_vault_id_vaults_id_fk" FOREIGN KEY ("vault_id") REFERENCES "public"."vaults"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "chain_events_signature_index_idx" ON "chain_events" USING btree ("signature","event_index");--> statement-breakpoint
CREATE INDEX "chain_events_vault_idx" ON "chain_events" USING btree ("vault_address","id");--> statement-breakpoint
CREATE INDEX "chain_events_slot_idx" ON "chain_events" USING btree ("slot");--> statement-breakpoint
CREATE INDEX "chain_signatures_slot_idx" ON "chain_signatures" USING btree ("slot");--> statement-breakpoint
CREATE UNIQUE INDEX "overrides_vault_nonce_idx" ON "overrides" USING btree ("vault_id","nonce");--> statement-breakpoint
CREATE INDEX "overrides_vault_created_idx" ON "overrides" USING btree ("vault_id","created_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "overrides_status_created_idx" ON "overrides" USING btree ("status","created_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "overrides_created_idx" ON "overrides" USING btree ("created_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_signature_event_idx" ON "transactions" USING btree ("signature","event_index");--> statement-breakpoint
CREATE INDEX "transactions_vault_timestamp_idx" ON "transactions" USING btree ("vault_id","timestamp" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "transactions_vault_status_timestamp_idx" ON "transactions" USING btree ("vault_id","status","timestamp" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "transactions_timestamp_idx" ON "transactions" USING btree ("timestamp" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "transactions_status_timestamp_idx" ON "transactions" USING btree ("status","timestamp" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "transactions_destination_idx" ON "transactions" USING btree ("destination");--> statement-breakpoint
CREATE INDEX "transactions_override_idx" ON "transactions" USING btree ("override_id");--> statement-breakpoint
CREATE INDEX "vaults_authority_created_idx" ON "vaults" USING btree ("authority","created_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "vaults_created_idx" ON "vaults" USING btree ("created_at" DESC NULLS FIRST,"id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_dedupe_idx" ON "webhook_deliveries" USING btree ("webhook_id","dedupe_key");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_webhook_created_idx" ON "webhook_deliveries" USING btree ("webhook_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "webhooks_owner_idx" ON "webhooks" USING btree ("owner");--> statement-breakpoint
CREATE INDEX "webhooks_vault_idx" ON "webhooks" USING btree ("vault_id");