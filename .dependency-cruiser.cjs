/**
 * Which way dependencies point, checked by `npm test` (test/unit/dependencies.test.ts) instead of
 * remembered by reviewers (docs/decisions/088).
 */
const pureDomainRules = '^functions/domain/';

/**
 * The layer table of docs/architecture.md, one rule a row: what each folder may NOT import (everything
 * above it, and the rows beside it that its own row leaves out). test/unit/dependencies.test.ts plants
 * a wrong import for each and expects the rule's name.
 */
const entryPoints = 'api|tasks|events|scheduled';
const moneyRecords = '^functions/store/(operations|transactions|batches|quotes|offRampQuotes|ledger)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'runtime-never-imports-lib',
      severity: 'error',
      comment:
        'functions/ and schemas/ are what runs in a Lambda; lib/ (CDK, local runtime, ops CLI), bin/, bench/ and test/ import them, never the reverse. Contract data both wirings read lives in functions/contract/.',
      from: { path: '^(functions|schemas)/' },
      to: { path: '^(lib|bin|bench|test)/' },
    },
    {
      name: 'domain-rules-are-pure',
      severity: 'error',
      comment:
        'Pure domain rules (money, pricing, corridors, screening, references, state graphs) import nothing of the store, providers, platform, contract wiring or AWS: they are tested and reasoned about alone.',
      from: { path: pureDomainRules },
      to: { path: '^(functions/(store|providers|platform|contract|api|tasks|events|scheduled|operations)/|lib/)|@aws-sdk|aws-cdk-lib' },
    },
    {
      name: 'api-calls-use-cases',
      severity: 'error',
      comment:
        'An API handler parses, authorizes, calls its use case and shapes the answer: it reaches a provider port or a money-moving record (an operation, payment, batch, quote or the ledger) only through functions/operations/, never another entry point. A resource with no workflow (recipients, team, keys, webhook endpoints) is its store module.',
      from: { path: '^functions/api/' },
      to: { path: [`^functions/(tasks|events|scheduled|providers|simulators)/`, moneyRecords] },
    },
    {
      name: 'tasks-run-operation-steps',
      severity: 'error',
      comment: "A workflow's Task entry point parses its input and runs a step of its operation: it reads no table and calls no provider itself.",
      from: { path: '^functions/tasks/' },
      to: { path: '^functions/(api|events|scheduled|store|providers|simulators)/' },
    },
    {
      name: 'event-targets-call-operations',
      severity: 'error',
      comment: 'Event-rule targets and the sweeper read and write the store and call operations; a provider is called by an operation only, and no entry point imports another.',
      from: { path: '^functions/(events|scheduled)/' },
      to: { path: '^functions/(api|tasks|providers|simulators)/' },
    },
    {
      name: 'operations-below-entry-points',
      severity: 'error',
      comment: 'Use cases are called by entry points (api, tasks, events, scheduled) and the ops CLI, never the reverse; they use ports, never a simulator.',
      from: { path: '^functions/operations/' },
      to: { path: [`^functions/(${entryPoints}|simulators)/`] },
    },
    {
      name: 'kit-knows-no-operation',
      severity: 'error',
      comment: 'The operation kit is the shape every money-moving operation fills: it knows no operation and no provider port (an operation hands it its call), only the store, platform, contract and domain.',
      from: { path: '^functions/operations/kit/' },
      to: { path: ['^functions/operations/(?!kit/)', '^functions/providers/'] },
    },
    {
      name: 'store-below-operations',
      severity: 'error',
      comment: 'The store is items, keys and conditional writes: it knows no use case, no provider and no entry point.',
      from: { path: '^functions/store/' },
      to: { path: [`^functions/(${entryPoints}|operations|providers|simulators)/`] },
    },
    {
      name: 'platform-below-store',
      severity: 'error',
      comment: 'The Lambda platform (config, errors, logger, metrics, the workflow and event-bus ports, the provider port registry, response shapes, pages) sits under the store: it reads no item and knows no use case.',
      from: { path: '^functions/platform/' },
      to: { path: [`^functions/(${entryPoints}|operations|store|providers|simulators)/`] },
    },
    {
      name: 'contract-is-data',
      severity: 'error',
      comment: 'The contract data (route table, registries, table definition, metric names, the OpenAPI document) is read by every wiring: it imports only schemas and the pure domain rules.',
      from: { path: '^functions/contract/' },
      to: { path: [`^functions/(${entryPoints}|operations|store|providers|simulators|platform)/`] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Modules that import each other at run time cannot be read, tested or bundled alone; break the cycle by moving what both need one layer down. A cycle closed only by a type import (erased at build) is not one.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'schemas-are-the-contract-only',
      severity: 'error',
      comment: 'schemas/ holds the zod schemas of the contract: it imports nothing of functions/ but the pure domain rules (the OpenAPI document that reads the route table is functions/contract/openapi.ts).',
      from: { path: '^schemas/' },
      to: { path: '^functions/(?!domain/)' },
    },
    {
      name: 'lambda-code-uses-zod-mini',
      severity: 'error',
      comment:
        "Lambda code writes its schemas with 'zod/mini' (docs/decisions/160): classic zod's methods cost every cold start that loads them. Only the document generator, which runs at build time, reads classic zod, through functions/contract/classicTwin.ts.",
      from: { path: '^(schemas/|functions/)', pathNot: '^functions/contract/(openapi|classicTwin)[.]ts$' },
      to: { path: '^node_modules/zod/(index[.]|v4/index[.]|v4/classic/|v3/)' },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment:
        'clients/typescript is a package of its own that integrators install without the service: it knows the service only through the generated OpenAPI types (src/schema.d.ts), never by importing its code.',
      from: { path: '^clients/' },
      to: { path: '^(functions|schemas|lib|bin|bench|test|examples)/' },
    },
    {
      name: 'examples-use-the-client',
      severity: 'error',
      comment: "examples/ are what an integrator writes: they import '@payments/client' and nothing of the service.",
      from: { path: '^examples/' },
      to: { path: '^(functions|schemas|lib|bin|bench|test)/' },
    },
    {
      name: 'no-unresolvable-import',
      severity: 'error',
      comment: 'An import the cruiser cannot resolve could hide a wrong direction.',
      from: {},
      to: { couldNotResolve: true },
    },
    // ---- Ports and simulators (issue 27; docs/decisions/121) -----------------------------------
    {
      name: 'providers-are-ports',
      severity: 'error',
      comment:
        'functions/providers/ holds the ports to third parties (interfaces, request and answer types, error types, the port objects) and real adapters: they import domain, platform, contract and schemas only. A simulator, which keeps its books in the table, lives in functions/simulators/.',
      from: { path: '^functions/providers/' },
      to: { path: '^functions/(store|operations|simulators|api|tasks|events|scheduled)/' },
    },
    {
      name: 'simulators-only-from-wiring',
      severity: 'error',
      comment:
        "The simulators are wired in by the simulated stage only: its bundles inject functions/simulators/install.ts (lib/build/lambdaBundles.ts), the local runtime imports it (lib/local/service.ts). Nothing else in functions/ or schemas/ imports a simulator, so what deploys to sandbox and production holds none; code that needs an outcome band reads functions/contract/outcomeBands.ts.",
      from: { path: '^(schemas/|functions/(?!simulators/))' },
      to: { path: '^functions/simulators/' },
    },
    // ---- end of ports and simulators ------------------------------------------------------------
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
