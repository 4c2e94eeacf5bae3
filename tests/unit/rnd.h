/* rnd.h - the unit tests' reproducible random numbers: Marsaglia's
 * xorshift64 from a fixed seed, so that a failure replays.  Include it
 * once, in the test's .c file. */
#ifndef STREAMTIME_TEST_RND_H
#define STREAMTIME_TEST_RND_H

#include <stdint.h>

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

#endif
