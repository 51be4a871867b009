ALTER TABLE "webhooks" ADD COLUMN "format" text DEFAULT 'json' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "sealed_url" text;