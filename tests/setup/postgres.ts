/**
 * Test preload: stops the throwaway PostgreSQL that testkit/postgres.ts starts on first use, if a suite started
 * one. Nothing is provisioned here, so a run without PostgreSQL suites never touches PostgreSQL.
 */
import { afterAll } from 'bun:test'
import { stopProvisionedPostgres } from '../../testkit/postgres.ts'

afterAll(stopProvisionedPostgres)
