#pragma once
// FakeClock lives beside Clock in src/common/clock.h so the simulator can use it too; tests
// may include it from here, where the other fakes are.
#include "common/clock.h"
