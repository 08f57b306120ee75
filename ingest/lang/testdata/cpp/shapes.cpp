#include <vector>
#include "shapes/base.hpp"

namespace geo {

/// A drawable shape.
class Shape : public Base, private Noncopyable {
public:
    Shape(int sides);
    ~Shape();
    virtual double area() const = 0;
    int sides() const { return sides_; }
private:
    int sides_;
    std::vector<Point> points_;
};

struct Circle : Shape {
    double r;
    double area() const override { return compute(r) * 3.14; }
};

template <typename T>
T max_of(T a, T b) { return a > b ? a : b; }

Shape::Shape(int sides) : sides_(sides) {
    init();
}

Shape::~Shape() {}

// Render all shapes.
void render(std::vector<Shape*>& shapes, Canvas* canvas) {
    Circle* c = new Circle();
    auto s = std::make_unique<Shape>(3);
    canvas->draw(c);
    c->area();
    s.reset();
    geo::util::log("done");
    std::sort(shapes.begin(), shapes.end(), compare);
    delete c;
}

static int helper() { return 1; }

enum class Color { Red, Green };

using Id = long;
typedef unsigned int uint;

}  // namespace geo

int main(int argc, char** argv) {
    geo::render(all, nullptr);
    return 0;
}
