// Text that trips naive readers: registrations inside strings and comments, raw strings,
// digraphs, a line comment ending in a backslash, deep parentheses.
const char* kText = "REGISTER_KERNEL_BUILDER(Name(\"InString\").Device(DEVICE_CPU), StringOp);";
/* REGISTER_KERNEL_BUILDER(Name("InComment").Device(DEVICE_CPU), CommentOp); */
// REGISTER_KERNEL_BUILDER(Name("InLineComment").Device(DEVICE_CPU), LineCommentOp); \
   still part of the comment
const char* kRaw = R"x(REGISTER_KERNEL_BUILDER(Name("InRaw"), X))x";
int digraphs<:3:> = <% 1, 2, 3 %>;
int deep = ((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))));
REGISTER_KERNEL_BUILDER(Name("Odd\x41").Device(DEVICE_CPU), OddOp);
REGISTER_KERNEL_BUILDER(Name("Con" "cat").Device(DEVICE_CPU), ConcatOp);
