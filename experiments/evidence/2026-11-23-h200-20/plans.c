/* plans ROWS COLS ELEM LIM(any|fit4|heavy): the own choice, and the tile/non-tile twin when it is in the space */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "row_plan.h"
int main(int argc, char **argv)
{
    row_shape s = {strtoull(argv[1], 0, 10), strtoull(argv[2], 0, 10), strtoull(argv[3], 0, 10)};
    const row_limits *lim = !strcmp(argv[4], "fit4") ? &row_limits_fit4 : !strcmp(argv[4], "heavy") ? &row_limits_heavy : &row_limits_any;
    row_plan own, p; char why[300], a[80], b[80];
    if (row_plan_choose(&s, lim, &own, why, sizeof why)) { printf("- -\n"); return 0; }
    row_plan twin = own; twin.tile = !own.tile;
    int found = 0;
    for (int n = 0; row_plan_space(&s, lim, n, &p); n++)
        if (!strcmp(row_plan_format(&p, a, sizeof a), row_plan_format(&twin, b, sizeof b))) found = 1;
    printf("%s %s\n", row_plan_format(&own, a, sizeof a), found ? row_plan_format(&twin, b, sizeof b) : "-");
    return 0;
}
