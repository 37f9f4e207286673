// A points-of-interest table sorted by coordinates; Point lacks operator<.
#include <algorithm>
#include <string>
#include <vector>

struct Point {
    int x, y;
    std::string name;
};

int main() {
    std::vector<Point> points{{1, 2, "well"}, {3, 4, "mill"}, {0, 7, "barn"}};
    std::sort(points.begin(), points.end());
    int total = 0;
    for (const auto& p : points) total += p.x + p.y + static_cast<int>(p.name.size());
    return total == 26 ? 0 : 1;
}
