CREATE TABLE "alert_events" (
	"id" bigint PRIMARY KEY DEFAULT nextval('chain_events_id_seq') NOT NULL,
	"name" text NOT NULL,
	"vault_address" text NOT NULL,
	"signature" text,
	"slot" bigint,
	"at" timestamp (3) with time zone NOT NULL,
	"data" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_marks" (
	"vault_id" uuid NOT NULL,
	"mark" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "alert_marks_vault_id_mark_pk" PRIMARY KEY("vault_id","mark")
);
--> statement-breakpoint
CREATE TABLE "vault_alert_settings" (
	"vault_id" uuid PRIMARY KEY NOT NULL,
	"budget_thresholds" integer[] NOT NULL,
	"velocity_window_seconds" integer,
	"velocity_max_transfers" integer,
	"expiry_warning_minutes" integer NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_marks" ADD CONSTRAINT "alert_marks_vault_id_vaults_id_fk" FOREIGN KEY ("vault_id") REFERENCES "public"."vaults"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vault_alert_settings" ADD CONSTRAINT "vault_alert_settings_vault_id_vaults_id_fk" FOREIGN KEY ("vault_id") REFERENCES "public"."vaults"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_events_vault_idx" ON "alert_events" USING btree ("vault_address","id");--> statement-breakpoint
CREATE INDEX "overrides_pending_expiry_idx" ON "overrides" USING btree ("expires_at") WHERE "overrides"."status" = 'pending';