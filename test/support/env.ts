// Where the tests find the shared services. Set the variables to point elsewhere.
export const testGridUrl = process.env.TEST_GRID_URL ?? "http://127.0.0.1:4444";
export const testRedisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379/0";
