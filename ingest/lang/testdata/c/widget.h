#pragma once
#include <string>

namespace ui {

// A widget on screen.
class Widget : public Base {
public:
    explicit Widget(std::string name);
    void draw() const { paint(name_); }
private:
    std::string name_;
};

}  // namespace ui
