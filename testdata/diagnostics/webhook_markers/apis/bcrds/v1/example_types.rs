use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::TypeMeta;

/// +genclient
pub struct Example {
    #[serde(flatten, default)]
    pub types: Option<TypeMeta>,
    pub metadata: ObjectMeta,
    pub spec: i32,
}

/// +kubebuilder:webhook:path=/validate,mutating=false,failurePolicy=fail,groups=bcrds.example.com,resources=examples,verbs=create,versions=v1,name=vexample.kb.io,admissionReviewVersions=v1
/// +kubebuilder:webhook:path=/validate,mutating=false,failurePolicy=fail,sideEffects=Some,groups=bcrds.example.com,resources=examples,verbs=create,versions=v1,name=vexample.kb.io,admissionReviewVersions=v1
/// +kubebuilder:webhook:path=/validate,mutating=false,failurePolicy=maybe,sideEffects=None,groups=bcrds.example.com,resources=examples,verbs=create,versions=v1,name=vexample.kb.io,admissionReviewVersions=v1
/// +kubebuilder:webhook:path=/validate,mutating=false,failurePolicy=fail,sideEffects=None,groups=bcrds.example.com,resources=examples,verbs=create,versions=v1,name=vexample.kb.io,admissionReviewVersions=v1,reinvocationPolicy=IfNeeded
/// +kubebuilder:webhook:path=/validate,mutating=false,failurePolicy=fail,sideEffects=None,groups=bcrds.example.com,resources=examples,verbs=create;patch,versions=v1,name=vexample.kb.io,admissionReviewVersions=v1
/// +kubebuilder:webhook:path=validate,mutating=true,failurePolicy=fail,sideEffects=None,groups=bcrds.example.com,resources=examples,verbs=create,versions=v1,name=mexample.kb.io,admissionReviewVersions=v1,timeoutSeconds=60
/// +kubebuilder:webhook:path=/mutate,mutating=true,failurePolicy=fail,sideEffects=None,groups=bcrds.example.com,resources=examples,verbs=create,versions=v1,name=mexample,admissionReviewVersions=v1
/// +kubebuilder:webhook:path=/validate,mutating=false,failurePolicy=fail,sideEffects=None,groups=bcrds.example.com,resources=examples,verbs=create,versions=v1,name=vexample.kb.io,admissionReviewVersions=v1
/// +kubebuilder:webhook:path=/validate,mutating=false,failurePolicy=fail,sideEffects=None,groups=bcrds.example.com,resources=examples,verbs=create,versions=v1,name=vexample.kb.io,admissionReviewVersions=v1
pub struct ExampleWebhook;
