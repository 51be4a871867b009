CREATE TABLE "agent_transfer_requests" (
	"agent" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"vault" text NOT NULL,
	"signature" text NOT NULL,
	"result" jsonb,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "agent_transfer_requests_agent_idempotency_key_pk" PRIMARY KEY("agent","idempotency_key")
);
