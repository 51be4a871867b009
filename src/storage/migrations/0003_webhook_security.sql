CREATE TABLE "webhook_confirmations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token_hash" text NOT NULL,
	"webhook_id" uuid,
	"address" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "verified" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_confirmations" ADD CONSTRAINT "webhook_confirmations_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_confirmations_token_idx" ON "webhook_confirmations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "webhook_confirmations_address_idx" ON "webhook_confirmations" USING btree ("address","created_at");