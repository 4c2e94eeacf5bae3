-- Distiller's database since mid-2023 (SPEC 4.4): jobs no longer carry a
-- scan_id; the association table scan_job_table links scans and jobs (a job
-- may cover several scans).  Written from the SPEC for the tests and for
-- local experiments; the production schema has more, which streamtime does
-- not read.
--
--   psql -v ON_ERROR_STOP=1 -f sql/distiller_current.sql DBNAME

CREATE TYPE job_state_enum AS ENUM (
    'INITIALIZING', 'QUEUED', 'RUNNING', 'COMPLETING', 'COMPLETED',
    'FAILED', 'CANCELLED', 'UNKNOWN'
);

CREATE TABLE microscopes (
    id     integer PRIMARY KEY,
    name   varchar NOT NULL UNIQUE,
    config json
);

CREATE TABLE scans (
    id            serial PRIMARY KEY,     -- the distiller_id
    scan_id       integer,                -- the detector's scan number, not unique
    created       timestamptz NOT NULL,
    metadata      jsonb,                  -- "Dimensions 1"/"Dimensions 2" or
                                          -- "Dimensions.1"/"Dimensions.2"
    microscope_id integer REFERENCES microscopes (id),
    progress      integer NOT NULL DEFAULT 0,
    uuid          varchar,
    sha           varchar(64),
    image_path    varchar,
    notes         varchar
);

CREATE TABLE jobs (
    id       serial PRIMARY KEY,
    job_type varchar NOT NULL
             CHECK (job_type IN ('transfer', 'count', 'streaming')),
    slurm_id integer,
    state    job_state_enum NOT NULL DEFAULT 'INITIALIZING',
    params   json NOT NULL DEFAULT '{}',
    output   varchar,
    elapsed  interval,
    machine  varchar,
    submit   timestamptz,
    notes    varchar
);

CREATE TABLE scan_job_table (
    scan_id integer NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
    job_id  integer NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    PRIMARY KEY (scan_id, job_id)
);

CREATE INDEX jobs_slurm_id ON jobs (slurm_id);
CREATE INDEX scan_job_table_job_id ON scan_job_table (job_id);
