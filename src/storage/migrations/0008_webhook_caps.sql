ALTER TABLE "webhooks" ADD COLUMN "created_from" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "recovered_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "webhooks_created_from_idx" ON "webhooks" USING btree ("created_from");