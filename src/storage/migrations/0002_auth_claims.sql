CREATE TABLE "auth_claims" (
	"key" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "auth_claims_expires_at_idx" ON "auth_claims" USING btree ("expires_at");